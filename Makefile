# opal's entry points. Each target first installs missing Debian packages,
# then configures (once) and builds incrementally with Ninja.
#
#   make build   build everything into build/
#   make test    build, then run every test (lit, GoogleTest, pytest)
#   make demo    build, then run opal's main demo
#   make clean   remove build/

BUILD_DIR ?= build
JOBS ?= 2
PYTHON := /usr/bin/python3
# The libFuzzer targets build in their own tree, with clang, ASan and UBSan.
FUZZ_DIR := $(BUILD_DIR)/fuzz
CLANG := /usr/lib/llvm-22/bin/clang

.PHONY: all build test demo clean bootstrap-build bootstrap-test

all: build

bootstrap-build:
	@scripts/bootstrap.sh build

bootstrap-test:
	@scripts/bootstrap.sh test

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) -DOPAL_PYTHON=$(PYTHON)

build: bootstrap-build $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

$(FUZZ_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(FUZZ_DIR) -DOPAL_FUZZERS=ON -DOPAL_PYTHON=$(PYTHON) \
	  -DCMAKE_C_COMPILER=$(CLANG) -DCMAKE_CXX_COMPILER=$(CLANG)++

# The Python tests run in a virtual environment outside the clone with
# PyTorch 2 from PyPI, their reference (scripts/bootstrap-python.sh prints
# its python); opal._torch_C is built against that PyTorch.
test: bootstrap-test $(BUILD_DIR)/build.ninja $(FUZZ_DIR)/build.ninja
	@python=$$(scripts/bootstrap-python.sh) && \
	  cmake $(BUILD_DIR) -DOPAL_TORCH_PYTHON=$$python > /dev/null && \
	  cmake --build $(BUILD_DIR) -j $(JOBS) && \
	  cmake --build $(FUZZ_DIR) -j $(JOBS) --target opal-fuzzers && \
	  $(PYTHON) scripts/run-tests.py --build-dir $(BUILD_DIR) --python $$python

demo: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/schema_tour.py
	@echo
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/operator_tour.py
	@echo
	OPAL_BUILD_DIR=$(BUILD_DIR) $(PYTHON) examples/compile_tour.py
	@echo
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/jit_tour.py
	@echo
	@echo "A GPT-style decoder block with opal's aten ops (examples/gpt_block.py):"
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/gpt_block.py
	@echo
	@echo "A small convolutional network with opal's aten ops (examples/small_cnn.py):"
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/small_cnn.py
	@echo
	@echo "Training an MLP with opal's autograd (examples/train_mlp.py):"
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/train_mlp.py
	@echo
	@echo "An op library compiled ahead of time (examples/aot), loaded from C++:"
	$(BUILD_DIR)/bin/myops-demo $(BUILD_DIR)/lib/libmyops.so

clean:
	rm -rf $(BUILD_DIR)
