"""A tour of opal's operators from Python: define an op by schema, give it
a kernel, call it, look at its dispatch table, watch calls with a mode.

    PYTHONPATH=build/python /usr/bin/python3 examples/operator_tour.py
"""

import numpy as np

import opal


def main():
    print("== Define an operator ==\n")
    lib = opal.library.Library("tour", "DEF")
    lib.define("softplus(Tensor x, float beta=1.0, float threshold=20.0) -> Tensor")

    def softplus_cpu(x, beta, threshold):
        a = x.numpy()
        out = np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)
        return opal.from_numpy(out.astype(a.dtype))

    lib.impl("softplus", softplus_cpu, "CPU")
    op = opal.ops.tour.softplus
    print(op.default._schema)

    print("\n== Call it ==\n")
    x = opal.tensor([-2.0, 0.0, 2.0, 30.0])
    print("x               =", x)
    print("softplus(x)     =", op(x))
    print("softplus(x, 2.) =", op(x, beta=2.0))
    try:
        op("not a tensor")
    except TypeError as error:
        print("bad call        ->", str(error).splitlines()[0])
    try:
        op(opal.empty(4, device="meta"))
    except NotImplementedError as error:
        print("meta tensor     ->", str(error).split(". ")[0] + ".")

    print("\n== Its dispatch table (first lines) ==\n")
    for line in opal._C._dispatch_dump_table("tour::softplus").splitlines()[:4]:
        print(line)

    print("\n== A dispatch mode sees every call ==\n")
    with opal.utils.OpRecorder() as recorder:
        op(op(x))
    print("ops called:", recorder.ops)
    lib._destroy()


if __name__ == "__main__":
    main()
