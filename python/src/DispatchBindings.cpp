//===- DispatchBindings.cpp - Keys, guards, libraries, Python kernels -----===//
//
// opal._C's view of the dispatcher: DispatchKey and DispatchKeySet, the TLS
// guards, the `_dispatch_*` introspection functions with PyTorch's names, and
// `_DispatchLibrary`, through which opal.library registers schemas and Python
// or fallthrough kernels.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "PythonValues.h"

#include "opal/AOT/OpLibrary.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Schema/SchemaParser.h"

#include <pybind11/stl.h>

#include <optional>

namespace py = pybind11;
using namespace opal;
using namespace opal::python;

namespace {

DispatchKey keyFromString(const std::string &name) {
  auto key = parseDispatchKey(name);
  if (!key)
    throw OpalError(key.error().message());
  return *key;
}

/// "" means no key (a catch-all), as in PyTorch's registration APIs.
std::optional<DispatchKey> optionalKey(const std::string &name) {
  if (name.empty())
    return std::nullopt;
  return keyFromString(name);
}

std::optional<OperatorHandle> findOpIfAny(const std::string &qualified) {
  auto name = parseOperatorName(qualified);
  if (!name)
    throw OpalError(name.error().message());
  return Dispatcher::singleton().findOp(*name);
}

OperatorHandle findOpOrThrow(const std::string &qualified) {
  auto name = parseOperatorName(qualified);
  if (!name)
    throw OpalError(name.error().message());
  auto op = Dispatcher::singleton().findOp(*name);
  if (!op)
    throw OpalError("could not find operator " + qualified);
  return *op;
}

/// A Python callable as a boxed kernel.
struct PythonKernel : OperatorKernel {
  explicit PythonKernel(py::object f, bool keys) : fn(std::move(f)), withKeySet(keys) {}
  ~PythonKernel() override {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      fn = py::object();
    } else {
      fn.release(); // the interpreter is gone; leak rather than crash
    }
  }
  py::object fn;
  bool withKeySet;
};

py::object argumentToPython(IValue &&value, const SchemaType &type) {
  const SchemaType &plain = type.isOptional() ? *type.element() : type;
  if (plain.kind() == TypeKind::ScalarType && value.isInt())
    return dtypeObject(value.toScalarType());
  return toPython(std::move(value));
}

/// Pops the arguments of `schema` off `stack` into Python args and kwargs
/// (keyword-only arguments go into kwargs, as PyTorch passes them).
std::pair<py::tuple, py::dict> popArguments(const FunctionSchema &schema, Stack &stack,
                                            std::optional<DispatchKeySet> keys) {
  const auto &arguments = schema.arguments();
  size_t n = arguments.size();
  auto first = stack.end() - n;
  py::list positional;
  py::dict kwargs;
  if (keys)
    positional.append(py::cast(*keys));
  for (size_t i = 0; i < n; ++i) {
    py::object value = argumentToPython(std::move(first[i]), *arguments[i].type());
    if (arguments[i].kwargOnly())
      kwargs[py::str(arguments[i].name())] = value;
    else
      positional.append(value);
  }
  stack.erase(first, stack.end());
  return {py::tuple(positional), kwargs};
}

/// Pushes a Python kernel's result as the schema's returns.
void pushReturns(const FunctionSchema &schema, py::handle result, Stack &stack) {
  const auto &returns = schema.returns();
  auto convert = [&](py::handle value, const Argument &ret, size_t index) {
    std::string expected;
    auto converted = toIValue(value, *ret.type(), expected);
    if (!converted)
      throw OpalError("the Python kernel of " + schema.operatorName().str() +
                      " returned " + pythonTypeName(value) +
                      (returns.size() > 1 ? " as return " + std::to_string(index + 1) : "") +
                      ", but the schema says " + expected);
    stack.push_back(std::move(*converted));
  };
  if (returns.size() == 1) {
    convert(result, returns[0], 0);
    return;
  }
  if (returns.empty()) {
    if (!result.is_none())
      throw OpalError("the Python kernel of " + schema.operatorName().str() +
                      " returned " + pythonTypeName(result) +
                      ", but the schema has no returns");
    return;
  }
  if (!py::isinstance<py::tuple>(result) && !py::isinstance<py::list>(result))
    throw OpalError("the Python kernel of " + schema.operatorName().str() + " returned " +
                    pythonTypeName(result) + ", but the schema has " +
                    std::to_string(returns.size()) + " returns");
  py::sequence values = py::reinterpret_borrow<py::sequence>(result);
  if (values.size() != returns.size())
    throw OpalError("the Python kernel of " + schema.operatorName().str() + " returned " +
                    std::to_string(values.size()) + " values, but the schema has " +
                    std::to_string(returns.size()) + " returns");
  for (size_t i = 0; i < returns.size(); ++i)
    convert(values[i], returns[i], i);
}

void callPythonKernel(OperatorKernel *functor, const OperatorHandle &op,
                      DispatchKeySet keys, Stack *stack) {
  auto *kernel = static_cast<PythonKernel *>(functor);
  py::gil_scoped_acquire gil;
  const FunctionSchema &schema = op.schema();
  auto [args, kwargs] = popArguments(schema, *stack,
                                     kernel->withKeySet ? std::optional(keys) : std::nullopt);
  py::object result = kernel->fn(*args, **kwargs); // Python errors propagate as is
  pushReturns(schema, result, *stack);
}

KernelFunction pythonKernel(py::object fn, bool withKeySet) {
  return KernelFunction::makeFromBoxedFunctor(
      IntrusivePtr<OperatorKernel>(new PythonKernel(std::move(fn), withKeySet)),
      &callPythonKernel);
}

/// The fallback of the Python key: hands the call to the active dispatch
/// mode through opal._ops._dispatch_to_mode.
void pythonKeyFallback(const OperatorHandle &op, DispatchKeySet keys, Stack *stack) {
  py::gil_scoped_acquire gil;
  const FunctionSchema &schema = op.schema();
  auto [args, kwargs] = popArguments(schema, *stack, std::nullopt);
  py::object handler = py::module_::import("opal._ops").attr("_dispatch_to_mode");
  py::object result = handler(schema.name(), schema.overloadName(), args, kwargs);
  pushReturns(schema, result, *stack);
}

/// A Library owned from Python; destroy() removes its registrations.
class PyLibrary {
public:
  PyLibrary(const std::string &kind, const std::string &ns, const std::string &key,
            const std::string &file, uint32_t line)
      : file_(file) {
    Library::Kind k = kind == "DEF"        ? Library::DEF
                      : kind == "IMPL"     ? Library::IMPL
                      : kind == "FRAGMENT" ? Library::FRAGMENT
                                           : throw py::value_error("Unsupported kind: " + kind);
    library_.emplace(k, ns, optionalKey(key), file_.c_str(), line);
  }
  Library &library() {
    if (!library_)
      throw OpalError("this Library was destroyed");
    return *library_;
  }
  void destroy() { library_.reset(); }

private:
  std::string file_; // Library keeps a debug string, not the pointer
  std::optional<Library> library_;
};

AliasAnalysisKind aliasKind(const std::string &name) {
  if (name.empty() || name == "FROM_SCHEMA")
    return AliasAnalysisKind::FROM_SCHEMA;
  if (name == "CONSERVATIVE")
    return AliasAnalysisKind::CONSERVATIVE;
  // As torch._C's library object: the C++ kinds, PURE_FUNCTION included
  // (opal.library.Library.define refuses that one, as PyTorch's does).
  if (name == "PURE_FUNCTION")
    return AliasAnalysisKind::PURE_FUNCTION;
  throw OpalError("could not parse " + name);
}

CppFunction kernelFor(py::object fn, bool withKeySet) {
  py::object fallthrough = py::module_::import("opal.library").attr("fallthrough_kernel");
  if (fn.is(fallthrough))
    return CppFunction::makeFallthrough();
  return CppFunction::makeFromKernelFunction(pythonKernel(std::move(fn), withKeySet));
}

/// A guard usable as a context manager and by lifetime.
template <typename Guard> struct PyGuard {
  explicit PyGuard(DispatchKeySet keys) : keys(keys) {}
  DispatchKeySet keys;
  std::optional<Guard> guard;
  void enter() {
    if (!guard)
      guard.emplace(keys);
  }
  void exit() { guard.reset(); }
};

template <typename Guard>
void bindGuard(py::module_ &m, const char *name) {
  using G = PyGuard<Guard>;
  py::class_<G>(m, name)
      .def(py::init([](DispatchKeySet keys) {
        auto *g = new G(keys);
        g->enter(); // active from construction, as PyTorch's guards are
        return g;
      }))
      .def(py::init([](DispatchKey key) {
        auto *g = new G(DispatchKeySet(key));
        g->enter();
        return g;
      }))
      .def("__enter__", [](G &g) { g.enter(); return &g; }, py::return_value_policy::reference)
      .def("__exit__", [](G &g, py::args) { g.exit(); });
}

} // namespace

void opal::python::bindDispatch(py::module_ &m) {
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error)
        std::rethrow_exception(error);
    } catch (const NotImplementedError &e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const OpalError &e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  // Warnings become Python UserWarnings (or errors, if the filters say so).
  setWarningHandler([](const std::string &message) {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0)
      throw py::error_already_set();
  });

  py::enum_<DispatchKey> keys(m, "DispatchKey", "PyTorch 1.13's dispatch keys.");
  for (uint16_t k = 0; k <= static_cast<uint16_t>(DispatchKey::EndOfAliasKeys); ++k) {
    auto key = static_cast<DispatchKey>(k);
    std::string name = toString(key);
    if (name.rfind("StartOf", 0) == 0 || name.rfind("EndOf", 0) == 0)
      continue;
    keys.value(toString(key), key);
  }

  py::class_<DispatchKeySet>(m, "DispatchKeySet")
      .def(py::init<>())
      .def(py::init<DispatchKey>())
      .def("has", &DispatchKeySet::has)
      .def("add", &DispatchKeySet::add)
      .def("remove", &DispatchKeySet::remove)
      .def("highestPriorityTypeId", &DispatchKeySet::highestPriorityTypeId)
      .def("__or__", &DispatchKeySet::operator|)
      .def("__and__", &DispatchKeySet::operator&)
      .def("__sub__", [](DispatchKeySet a, DispatchKeySet b) { return a - b; })
      .def("__eq__", &DispatchKeySet::operator==)
      .def("__str__", &DispatchKeySet::str)
      .def("__repr__", &DispatchKeySet::str);
  m.def("_dispatch_keyset_full_after", [](DispatchKey key) {
    return DispatchKeySet(DispatchKeySet::FULL_AFTER, key);
  });

  bindGuard<IncludeDispatchKeyGuard>(m, "_IncludeDispatchKeyGuard");
  bindGuard<ExcludeDispatchKeyGuard>(m, "_ExcludeDispatchKeyGuard");
  m.attr("_AutoDispatchBelowAutograd") = py::cpp_function([] {
    return py::module_::import("opal._C").attr("_ExcludeDispatchKeyGuard")(
        kAutogradDispatchKeySet);
  });
  m.def("_dispatch_tls_set_dispatch_key_included", &tlsSetDispatchKeyIncluded);
  m.def("_dispatch_tls_set_dispatch_key_excluded", &tlsSetDispatchKeyExcluded);
  m.def("_dispatch_tls_is_dispatch_key_included", &tlsIsDispatchKeyIncluded);
  m.def("_dispatch_tls_is_dispatch_key_excluded", &tlsIsDispatchKeyExcluded);
  m.def("_dispatch_tls_local_include_set", [] { return tlsLocalDispatchKeySet().included(); });
  m.def("_dispatch_tls_local_exclude_set", [] { return tlsLocalDispatchKeySet().excluded(); });

  m.def("_dispatch_keys", [](const Tensor &t) { return t.keySet(); });
  m.def("_jit_stats", [] {
    jit::JitStats stats = jit::jitStats();
    py::dict out;
    out["hits"] = stats.hits;
    out["misses"] = stats.misses;
    out["compiles"] = stats.compiles;
    out["plans"] = stats.plans;
    out["disk_hits"] = stats.diskHits;
    out["precompiled"] = stats.precompiled;
    out["stale"] = stats.stale;
    out["compile_ms"] = stats.compileMilliseconds;
    out["plan_ms"] = stats.planMilliseconds;
    return out;
  });
  m.def("_jit_reset_stats", &jit::resetJitStats);
  m.def("_jit_declare_static_shapes", &jit::declareStaticShapes, py::arg("op"),
        "Op 'ns::name' compiles for the sizes of each call, with no kernel for "
        "every size tried first.");
  // `with _C._ResultsInto([t, None, ...]): op(...)`: see ResultsIntoGuard.
  struct ResultsInto {
    std::vector<Tensor> into;
    std::string op;
    std::unique_ptr<jit::ResultsIntoGuard> guard;
  };
  py::class_<ResultsInto>(m, "_ResultsInto",
                          "Around one call of op `op` ('ns::name', with): its kernel writes "
                          "result i into tensor i where it fits (None: a new tensor).")
      .def(py::init([](const std::vector<std::optional<Tensor>> &into, const std::string &op) {
             auto self = std::make_unique<ResultsInto>();
             for (const std::optional<Tensor> &t : into)
               self->into.push_back(t ? *t : Tensor());
             self->op = op;
             return self;
           }),
           py::arg("into"), py::arg("op"))
      .def("__enter__",
           [](ResultsInto &self) {
             self.guard = std::make_unique<jit::ResultsIntoGuard>(self.into, self.op);
             return &self;
           },
           py::return_value_policy::reference)
      .def("__exit__", [](ResultsInto &self, py::args) { self.guard.reset(); });
  m.def("_jit_add_op_library_text", &jit::addOpLibraryText, py::arg("name"), py::arg("text"),
        "Adds an op-library text to the JIT; returns its id.");
  m.def("_jit_remove_op_library_text", &jit::removeOpLibraryText, py::arg("id"),
        "Takes back a text added with _jit_add_op_library_text.");
  m.def("_jit_check_op_library_text", [](const std::string &name, const std::string &text) {
    auto compiler = jit::kernelCompiler();
    if (!compiler)
      throw OpalError(compiler.error().message());
    auto checked = (*compiler)->checkLibraryText(name, text);
    if (!checked)
      throw OpalError(checked.error().message());
  }, py::arg("name"), py::arg("text"),
  "Raises if an op-library text does not parse against the ops defined now.");
  // Whether `ns::op` or `ns::op.overload` is defined (has a schema): one
  // lookup, where _overload_names walks every op.
  m.def("_has_schema", [](const std::string &name) {
    auto parsed = parseOperatorName(name);
    return parsed && Dispatcher::singleton().findSchema(*parsed).has_value();
  });
  // Both say nothing ("") of an op that does not exist (any more), as
  // PyTorch's do.
  m.def("_dispatch_dump_table", [](const std::string &name) {
    std::optional<OperatorHandle> op = findOpIfAny(name);
    return op ? op->dumpComputedTable() : std::string();
  });
  m.def("_dispatch_dump", [](const std::string &name) {
    std::optional<OperatorHandle> op = findOpIfAny(name);
    return op ? op->dumpState() : std::string();
  });
  // What runs a call of `name` on the CPU: "mlir" (a kernel the JIT
  // compiles from the op's MLIR definition), "native" (C++, or Python), or
  // "" when no kernel does.
  m.def("_cpu_kernel_kind", [](const std::string &name) -> std::string {
    const KernelFunction &kernel = findOpOrThrow(name).entry().tableEntry(DispatchKey::CPU);
    if (!kernel.isValid())
      return "";
    return jit::MlirKernel::isMlirKernel(kernel) ? "mlir" : "native";
  });
  // Whether a kernel calling `name` on the CPU runs op by op there: the
  // op's CPU kernel is neither defined in MLIR nor equivalent to a kernel
  // that is (views), the compiler's own test of the ops a kernel reaches.
  m.def("_cpu_kernel_is_opaque", [](const std::string &name) {
    return jit::isOpaqueKernel(findOpOrThrow(name).entry().tableEntry(DispatchKey::CPU));
  });
  m.def("_dispatch_has_kernel_for_dispatch_key", [](const std::string &name, const std::string &key) {
    return findOpOrThrow(name).hasKernelForDispatchKey(keyFromString(key));
  });
  m.def("_dispatch_check_invariants", [](const std::string &name) {
    auto problems = findOpOrThrow(name).checkInvariants();
    if (!problems.empty())
      throw OpalError(problems.front());
  });
  m.def("_dispatch_find_dangling_impls", [] { return Dispatcher::singleton().findDanglingImpls(); });
  m.def("_dispatch_all_op_names", [] {
    std::vector<std::string> names;
    for (const OperatorName &name : Dispatcher::singleton().allOpNames())
      names.push_back(name.str());
    return names;
  });
  m.def("_dispatch_resolved_key", [](const std::string &name, const std::string &keyName) -> py::object {
    // The key whose registration serves `keyName` in the computed table.
    OperatorHandle op = findOpOrThrow(name);
    DispatchKey key = keyFromString(keyName);
    Dispatcher &dispatcher = Dispatcher::singleton();
    std::lock_guard<std::mutex> lock(dispatcher.registrationMutex());
    ComputedEntry entry = op.entry().computeEntry(dispatcher, key);
    std::string provenance = entry.provenance;
    auto front = [&](DispatchKey k) {
      const auto &kernels = op.entry().kernelsAt(k);
      return kernels.empty() ? nullptr : kernels.front().kernel.get();
    };
    if (provenance == "missing")
      return py::none();
    for (DispatchKey alias : {DispatchKey::CompositeExplicitAutogradNonFunctional,
                              DispatchKey::CompositeExplicitAutograd,
                              DispatchKey::CompositeImplicitAutogradNestedTensor,
                              DispatchKey::CompositeImplicitAutograd, DispatchKey::Autograd})
      if (provenance != "kernel" && front(alias) == entry.kernel)
        return py::cast(alias);
    return py::cast(key);
  });
  m.def("_dispatch_is_included_in_alias", &isIncludedInAlias);
  m.def("_dispatch_is_framework_fallthrough", [](DispatchKey key) {
    const AnnotatedKernel *fallback = Dispatcher::singleton().backendFallback(key);
    return fallback && fallback->kernel->isFallthrough();
  });
  m.def("_load_library", &aot::loadLibrary, py::arg("path"),
        "dlopens a shared library of ops; returns its registration errors");
  m.def("_log_enabled", [](const std::string &topic) {
    if (topic == "dispatch")
      return logEnabled(LogTopic::Dispatch);
    if (topic == "jit")
      return logEnabled(LogTopic::JIT);
    if (topic == "cache")
      return logEnabled(LogTopic::Cache);
    if (topic == "torch")
      return logEnabled(LogTopic::Torch);
    throw py::value_error("unknown log topic '" + topic + "'");
  });
  m.def("_set_log", [](const std::string &topic, bool on) {
    if (topic == "dispatch")
      setLogEnabled(LogTopic::Dispatch, on);
    else
      throw py::value_error("unknown log topic '" + topic + "'");
  });

  py::class_<PyLibrary>(m, "_DispatchLibrary")
      .def(py::init<const std::string &, const std::string &, const std::string &,
                    const std::string &, uint32_t>(),
           py::arg("kind"), py::arg("ns"), py::arg("dispatch_key"), py::arg("file"),
           py::arg("line"))
      .def("define", [](PyLibrary &lib, const std::string &schema, const std::string &alias) {
             lib.library().def(schema, aliasKind(alias));
             auto parsed = parseSchema(schema);
             return std::string(parsed->baseName());
           }, py::arg("schema"), py::arg("alias_analysis") = "")
      .def("impl", [](PyLibrary &lib, const std::string &name, const std::string &key,
                      py::object fn, bool withKeySet) {
             CppFunction kernel = kernelFor(std::move(fn), withKeySet);
             if (key.empty())
               lib.library().impl(name, std::move(kernel));
             else
               lib.library().impl(name, keyFromString(key), std::move(kernel));
           }, py::arg("name"), py::arg("dispatch_key"), py::arg("fn"), py::arg("with_keyset") = false)
      .def("impl_mlir", [](PyLibrary &lib, const std::string &name, const std::string &key) {
             lib.library().impl(name, keyFromString(key),
                                CppFunction::makeFromKernelFunction(jit::MlirKernel::make()));
           }, py::arg("name"), py::arg("dispatch_key"),
           "Registers the op's MLIR definition (compiled by the JIT) as its kernel for the key.")
      .def("fallback", [](PyLibrary &lib, py::object fn) {
             lib.library().fallback(kernelFor(std::move(fn), false));
           }, py::arg("fn"))
      .def("destroy", &PyLibrary::destroy);

  // The Python key's fallback runs dispatch modes (opal.utils.DispatchMode).
  auto fallback = Dispatcher::singleton().registerFallback(
      DispatchKey::Python, KernelFunction::makeFromBoxedFunction(&pythonKeyFallback),
      "registered at opal/_C (dispatch modes)");
  if (!fallback)
    throw OpalError(fallback.error().message());
  // Kept for the life of the process.
  new RegistrationHandleRAII(std::move(*fallback));
}
