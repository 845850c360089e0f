"""torch.compile(model, backend="opal") on PyTorch 2 (needs PyTorch 2 and
torchvision: make test's environment, scripts/bootstrap-python.sh).

A small CNN (convolutions, batch norm in eval mode, in-place ReLU, a
residual `+=`, pooling, a linear head) and torchvision's resnet18 compile
through opal's backend: Dynamo captures the graph, AOTAutograd makes it
functional (the in-place ops become out-of-place ones, so they fuse), and
opal compiles it into its kernels. Both match eager; OPAL_LOG=torch shows
what opal compiled.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python examples/torch_compile_backend.py
"""

import torch
import torchvision

import opal


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.relu = torch.nn.ReLU(inplace=True)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y += self.conv2(y)  # a residual, in place
        return self.head(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


torch.manual_seed(0)
for name, model, shape in [("small CNN", SmallCNN(), (2, 3, 16, 16)),
                           ("resnet18", torchvision.models.resnet18(), (1, 3, 64, 64))]:
    model.eval()
    x = torch.randn(*shape)
    compiled = torch.compile(model, backend="opal")
    with torch.no_grad():
        got, want = compiled(x), model(x)
    error = (got - want).abs().max().item()
    print(f"{name}: max |opal - eager| = {error:.1e}, "
          f"{'matches' if error < 1e-3 else 'DIFFERS'}")
print(f"graphs compiled by opal's backend: {opal.jit.stats()['torch_traces']}")
