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

test: bootstrap-test $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)
	$(PYTHON) scripts/run-tests.py --build-dir $(BUILD_DIR)

demo: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/schema_tour.py
	@echo
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/operator_tour.py
	@echo
	OPAL_BUILD_DIR=$(BUILD_DIR) $(PYTHON) examples/compile_tour.py
	@echo
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/jit_tour.py
	@echo
	@echo "An op library compiled ahead of time (examples/aot), loaded from C++:"
	$(BUILD_DIR)/bin/myops-demo $(BUILD_DIR)/lib/libmyops.so

clean:
	rm -rf $(BUILD_DIR)
