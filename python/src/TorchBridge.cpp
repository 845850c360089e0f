//===- TorchBridge.cpp - opal ops as PyTorch kernels, in C++ ---------------===//
//
// The native half of opal.torch (module opal._torch_C, built against the
// PyTorch of the tests' environment, whose wheel carries libtorch's headers). opal.torch.register defines an opal op
// in PyTorch through torch.library; this module registers the op's kernels at
// PyTorch's CPU and AutogradCPU keys as C++ functors, so that a call through
// torch.ops never enters Python:
//
//   torch.ops.myops.softplus(t)
//     → PyTorch's dispatcher → TorchKernel (this file)
//     → each torch tensor becomes an opal tensor over the same memory (its
//       storage is kept alive by the opal tensor), every other argument the
//       opal value of the same kind
//     → opal's dispatcher runs the op (its compiled kernel, whatever opal
//       resolves)
//     → each opal tensor returned becomes a torch tensor over its memory
//       (a view of a torch input's memory goes back onto that torch storage;
//       a returned `Tensor(a!)` is the argument itself).
//
// At AutogradCPU a call that records (grad mode on, a tensor argument that
// requires grad) goes to the Python kernel opal.torch gives (it runs the op
// under opal's autograd inside a torch.autograd.Function); a call on a
// tensor subclass (a fake or functional tensor) goes on to the keys below
// autograd (a fake tensor's fake kernel); every other call runs the op as
// at CPU. Meta (the fake kernel) and CUDA keep opal.torch's Python kernels.
//
//===----------------------------------------------------------------------===//

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/library.h>

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

//===----------------------------------------------------------------------===//
// torch → opal
//===----------------------------------------------------------------------===//

std::string torchDtypeName(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Byte: return "torch.uint8";
  case c10::ScalarType::Char: return "torch.int8";
  case c10::ScalarType::Short: return "torch.int16";
  case c10::ScalarType::Int: return "torch.int32";
  case c10::ScalarType::Long: return "torch.int64";
  case c10::ScalarType::Half: return "torch.float16";
  case c10::ScalarType::Float: return "torch.float32";
  case c10::ScalarType::Double: return "torch.float64";
  case c10::ScalarType::ComplexHalf: return "torch.complex32";
  case c10::ScalarType::ComplexFloat: return "torch.complex64";
  case c10::ScalarType::ComplexDouble: return "torch.complex128";
  case c10::ScalarType::Bool: return "torch.bool";
  case c10::ScalarType::BFloat16: return "torch.bfloat16";
  case c10::ScalarType::QInt8: return "torch.qint8";
  case c10::ScalarType::QUInt8: return "torch.quint8";
  case c10::ScalarType::QInt32: return "torch.qint32";
  default: return std::string("torch.") + c10::toString(type);
  }
}

std::string torchLayoutName(c10::Layout layout) {
  switch (layout) {
  case c10::kSparse:
    return "torch.sparse_coo";
  case c10::kSparseCsr:
    return "torch.sparse_csr";
  case c10::kSparseCsc:
    return "torch.sparse_csc";
  case c10::kSparseBsr:
    return "torch.sparse_bsr";
  case c10::kSparseBsc:
    return "torch.sparse_bsc";
  case c10::kMkldnn:
    return "torch._mkldnn";
  default:
    return "torch.strided";
  }
}

/// opal's dtype for `type`, or nullopt (complex128, the quantized types).
std::optional<opal::ScalarType> opalDtype(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Byte:
  case c10::ScalarType::Char:
  case c10::ScalarType::Short:
  case c10::ScalarType::Int:
  case c10::ScalarType::Long:
  case c10::ScalarType::Half:
  case c10::ScalarType::Float:
  case c10::ScalarType::Double:
  case c10::ScalarType::ComplexFloat:
  case c10::ScalarType::Bool:
  case c10::ScalarType::BFloat16:
    // opal numbers its dtypes as c10 does.
    return static_cast<opal::ScalarType>(static_cast<int8_t>(type));
  default:
    return std::nullopt;
  }
}

/// The deleter of an opal storage over a torch storage: it holds one
/// reference to the torch StorageImpl (its context).
void releaseTorchStorage(void * /*data*/, void *context) {
  c10::raw::intrusive_ptr::decref(static_cast<c10::StorageImpl *>(context));
}

opal::DimVector dims(c10::IntArrayRef values) {
  return opal::DimVector(opal::IntArrayRef(values.data(), values.size()));
}

/// An opal tensor over `tensor`'s memory (no copy). Refuses what opal
/// cannot hold with opal.torch's words.
opal::Tensor toOpalTensor(const at::Tensor &tensor) {
  if (!tensor.defined())
    return opal::Tensor();
  if (tensor.device().type() != c10::DeviceType::CPU)
    throw opal::OpalError("opal.torch: tensors on " + tensor.device().str() +
                          " have no opal device (opal has cpu, cuda and meta)");
  if (tensor.layout() == c10::kStrided && !tensor.has_storage())
    throw opal::OpalError("opal.torch: a tensor without storage (a wrapper or functional "
                          "tensor) has no opal memory to share");
  if (tensor.layout() != c10::kStrided)
    throw opal::OpalError("opal.torch: a " + torchLayoutName(tensor.layout()) +
                          " tensor has no opal layout (opal's tensors are torch.strided)");
  std::optional<opal::ScalarType> dtype = opalDtype(tensor.scalar_type());
  if (!dtype)
    throw opal::OpalError("opal.torch: " + torchDtypeName(tensor.scalar_type()) +
                          " has no opal dtype");
  if (tensor.is_conj() || tensor.is_neg())
    return toOpalTensor(tensor.resolve_conj().resolve_neg());
  c10::StorageImpl *storage = tensor.storage().unsafeGetStorageImpl();
  c10::raw::intrusive_ptr::incref(storage);
  auto opalStorage = opal::Storage::make(storage->mutable_data(), storage->nbytes(),
                                         opal::Device(opal::DeviceType::CPU),
                                         &releaseTorchStorage, storage);
  return opal::Tensor(opal::IntrusivePtr<opal::TensorImpl>::make(
      std::move(opalStorage), *dtype, opal::Device(opal::DeviceType::CPU), dims(tensor.sizes()),
      dims(tensor.strides()), tensor.storage_offset()));
}

opal::Device toOpalDevice(c10::Device device) {
  switch (device.type()) {
  case c10::DeviceType::CPU:
    return opal::Device(opal::DeviceType::CPU);
  case c10::DeviceType::CUDA:
    return opal::Device(opal::DeviceType::CUDA, device.index());
  case c10::DeviceType::Meta:
    return opal::Device(opal::DeviceType::Meta);
  default:
    throw opal::OpalError("opal.torch: device " + device.str() +
                          " has no opal device (opal has cpu, cuda and meta)");
  }
}

opal::IValue toOpal(const c10::IValue &value, const c10::Argument &argument) {
  if (value.isNone())
    return opal::IValue();
  if (value.isTensor())
    return opal::IValue(toOpalTensor(value.toTensor()));
  if (value.isInt())
    return opal::IValue(value.toInt());
  if (value.isDouble())
    return opal::IValue(value.toDouble());
  if (value.isBool())
    return opal::IValue(value.toBool());
  if (value.isComplexDouble())
    return opal::IValue(std::complex<double>(value.toComplexDouble()));
  if (value.isString())
    return opal::IValue(value.toStringRef());
  if (value.isDevice())
    return opal::IValue(toOpalDevice(value.toDevice()));
  if (value.isIntList())
    return opal::IValue(value.toIntVector());
  if (value.isDoubleList())
    return opal::IValue(value.toDoubleVector());
  if (value.isBoolList()) {
    c10::List<bool> list = value.toBoolList();
    return opal::IValue(std::vector<bool>(list.begin(), list.end()));
  }
  if (value.isTensorList()) {
    std::vector<opal::Tensor> tensors;
    for (const at::Tensor &tensor : value.toTensorList())
      tensors.push_back(toOpalTensor(tensor));
    return opal::IValue(std::move(tensors));
  }
  if (value.isList()) { // Tensor?[]
    std::vector<std::optional<opal::Tensor>> tensors;
    for (const c10::IValue &element : value.toListRef()) {
      if (element.isNone())
        tensors.emplace_back();
      else if (element.isTensor())
        tensors.emplace_back(toOpalTensor(element.toTensor()));
      else
        throw opal::OpalError("opal.torch: argument '" + argument.name() + "' holds a " +
                              element.tagKind() + ", which has no opal value");
    }
    return opal::IValue(std::move(tensors));
  }
  throw opal::OpalError("opal.torch: argument '" + argument.name() + "' is a " +
                        value.tagKind() + ", which has no opal value");
}

//===----------------------------------------------------------------------===//
// opal → torch
//===----------------------------------------------------------------------===//

/// The deleter of a torch storage over an opal storage (its context holds
/// one reference to it).
void releaseOpalStorage(void *context) {
  static_cast<opal::StorageImpl *>(context)->release();
}

/// A torch tensor over opal `tensor`'s memory. Memory that came from torch
/// goes back onto the torch storage it came from (so views of a torch
/// input stay views of it for PyTorch as well).
at::Tensor toTorchTensor(const opal::Tensor &tensor) {
  if (!tensor.defined())
    return at::Tensor();
  if (!tensor.device().isCPU())
    throw opal::OpalError("opal.torch: the op returned a tensor on " + tensor.device().str() +
                          " to a CPU call");
  opal::StorageImpl *opalStorage = tensor.impl()->storage().get();
  c10::Storage storage;
  if (opalStorage->deleter() == &releaseTorchStorage) {
    storage = c10::Storage(c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(
        static_cast<c10::StorageImpl *>(opalStorage->context())));
  } else {
    opalStorage->retain();
    storage = c10::Storage(c10::Storage::use_byte_size_t(), opalStorage->nbytes(),
                           c10::DataPtr(opalStorage->data(), opalStorage, &releaseOpalStorage,
                                        c10::Device(c10::DeviceType::CPU)),
                           /*allocator=*/nullptr, /*resizable=*/false);
  }
  auto dtype = static_cast<c10::ScalarType>(static_cast<int8_t>(tensor.dtype()));
  at::Tensor result = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU),
      c10::scalarTypeToTypeMeta(dtype));
  opal::IntArrayRef sizes = tensor.sizes(), strides = tensor.strides();
  result.unsafeGetTensorImpl()->set_sizes_and_strides(
      c10::IntArrayRef(sizes.data(), sizes.size()),
      c10::IntArrayRef(strides.data(), strides.size()), tensor.storageOffset());
  return result;
}

c10::IValue toTorch(opal::IValue value) {
  switch (value.tag()) {
  case opal::IValue::Tag::None:
    return c10::IValue();
  case opal::IValue::Tag::Tensor:
    return c10::IValue(toTorchTensor(value.toTensor()));
  case opal::IValue::Tag::Int:
    return c10::IValue(value.toInt());
  case opal::IValue::Tag::Double:
    return c10::IValue(value.toDouble());
  case opal::IValue::Tag::Bool:
    return c10::IValue(value.toBool());
  case opal::IValue::Tag::Complex:
    return c10::IValue(c10::complex<double>(value.toComplex()));
  case opal::IValue::Tag::String:
    return c10::IValue(value.toStringRef());
  case opal::IValue::Tag::IntList:
    return c10::IValue(value.toIntList());
  case opal::IValue::Tag::DoubleList:
    return c10::IValue(value.toDoubleList());
  case opal::IValue::Tag::BoolList: {
    c10::List<bool> list;
    for (bool element : value.toBoolList())
      list.push_back(element);
    return c10::IValue(std::move(list));
  }
  case opal::IValue::Tag::TensorList: {
    c10::List<at::Tensor> list;
    for (const opal::Tensor &tensor : value.toTensorList())
      list.push_back(toTorchTensor(tensor));
    return c10::IValue(std::move(list));
  }
  case opal::IValue::Tag::Tuple: {
    std::vector<c10::IValue> elements;
    for (const opal::IValue &element : value.toTupleElements())
      elements.push_back(toTorch(element));
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  default:
    throw opal::OpalError(std::string("opal.torch: the op returned a ") + value.tagName() +
                          ", which has no torch value");
  }
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// The arguments of `schema` that the op writes (`Tensor(a!)`).
std::vector<size_t> writtenArguments(const c10::FunctionSchema &schema) {
  std::vector<size_t> result;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    const c10::AliasInfo *alias = schema.arguments()[i].alias_info();
    if (alias && alias->isWrite())
      result.push_back(i);
  }
  return result;
}

/// For each return of `schema`, the argument it is written through
/// (`Tensor(a!)`), or -1.
std::vector<int> writtenReturns(const c10::FunctionSchema &schema) {
  std::vector<int> result;
  for (const c10::Argument &ret : schema.returns()) {
    int found = -1;
    const c10::AliasInfo *alias = ret.alias_info();
    if (alias && alias->isWrite()) {
      for (size_t i = 0; i < schema.arguments().size(); ++i) {
        const c10::AliasInfo *argAlias = schema.arguments()[i].alias_info();
        if (argAlias && argAlias->isWrite() && argAlias->beforeSets() == alias->beforeSets() &&
            schema.arguments()[i].type()->kind() == c10::TypeKind::TensorType)
          found = static_cast<int>(i);
      }
    }
    result.push_back(found);
  }
  return result;
}

bool anyRequiresGrad(c10::ArrayRef<c10::IValue> args) {
  for (const c10::IValue &value : args) {
    if (value.isTensor()) {
      if (value.toTensor().requires_grad())
        return true;
    } else if (value.isTensorList()) {
      for (const at::Tensor &tensor : value.toTensorList())
        if (tensor.requires_grad())
          return true;
    } else if (value.isList()) {
      for (const c10::IValue &element : value.toListRef())
        if (element.isTensor() && element.toTensor().requires_grad())
          return true;
    }
  }
  return false;
}

class TorchKernel final : public c10::OperatorKernel {
public:
  /// `gradKernel`: at an Autograd key, the Python kernel for calls that
  /// record; None at a backend key.
  TorchKernel(opal::OperatorHandle op, const c10::FunctionSchema &schema, py::object gradKernel)
      : op_(op), numArguments_(schema.arguments().size()),
        writtenArguments_(writtenArguments(schema)), writtenReturns_(writtenReturns(schema)),
        gradKernel_(std::move(gradKernel)) {}

  ~TorchKernel() override {
    // PyTorch's dispatcher, a static of libtorch, destroys its kernels at
    // exit, after Python has finalized: the Python kernel is then left as
    // it is (the interpreter that owned it is gone).
    if (!Py_IsInitialized() || _Py_IsFinalizing()) {
      gradKernel_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    gradKernel_ = py::object();
  }

  void operator()(const c10::OperatorHandle &handle, c10::DispatchKeySet keys,
                  torch::jit::Stack *stack) {
    c10::ArrayRef<c10::IValue> args = torch::jit::last(*stack, numArguments_);
    if (gradKernel_) {
      if (c10::GradMode::is_enabled() && anyRequiresGrad(args)) {
        callPython(handle.schema(), stack);
        return;
      }
      // A call on a tensor subclass (a fake tensor, whose memory is not
      // real: running the op on it would crash) goes on to the keys below
      // autograd, where the Python key's fake kernel answers; any other
      // runs here (one dispatch less).
      c10::DispatchKeySet below = keys & c10::after_autograd_keyset;
      if (below.has(c10::DispatchKey::Python) || below.has(c10::DispatchKey::Functionalize)) {
        handle.redispatchBoxed(below, stack);
        return;
      }
    }
    const std::vector<c10::Argument> &arguments = handle.schema().arguments();
    opal::Stack opalStack;
    opalStack.reserve(numArguments_);
    try {
      for (size_t i = 0; i < numArguments_; ++i)
        opalStack.push_back(toOpal(args[i], arguments[i]));
      op_.callBoxed(opalStack);
    } catch (const opal::NotImplementedError &error) {
      TORCH_CHECK_NOT_IMPLEMENTED(false, error.what());
    } catch (const opal::OpalError &error) {
      TORCH_CHECK(false, error.what());
    }
    // What the op wrote: PyTorch's version counters see the write.
    for (size_t i : writtenArguments_) {
      if (!args[i].isTensor())
        continue;
      c10::TensorImpl *impl = args[i].toTensor().unsafeGetTensorImpl();
      if (impl->version_counter().enabled())
        impl->bump_version();
    }
    std::vector<c10::IValue> results;
    results.reserve(opalStack.size());
    for (size_t i = 0; i < opalStack.size(); ++i) {
      if (i < writtenReturns_.size() && writtenReturns_[i] >= 0)
        results.push_back(args[writtenReturns_[i]]);
      else
        results.push_back(toTorch(std::move(opalStack[i])));
    }
    torch::jit::drop(*stack, numArguments_);
    for (c10::IValue &result : results)
      stack->push_back(std::move(result));
  }

private:
  /// The Python kernel's call with the stack's arguments (keyword-only ones
  /// by name), its results pushed back as the schema types them.
  void callPython(const c10::FunctionSchema &schema, torch::jit::Stack *stack) {
    py::gil_scoped_acquire gil;
    py::list args;
    py::dict kwargs;
    size_t first = stack->size() - numArguments_;
    for (size_t i = 0; i < numArguments_; ++i) {
      py::object value = torch::jit::toPyObject(std::move((*stack)[first + i]));
      const c10::Argument &argument = schema.arguments()[i];
      if (argument.kwarg_only())
        kwargs[py::str(argument.name())] = value;
      else
        args.append(value);
    }
    torch::jit::drop(*stack, numArguments_);
    py::object result = gradKernel_(*args, **kwargs);
    const std::vector<c10::Argument> &returns = schema.returns();
    if (returns.size() == 1) {
      stack->push_back(torch::jit::toIValue(result, returns[0].type()));
      return;
    }
    py::tuple results = result.cast<py::tuple>();
    for (size_t i = 0; i < returns.size(); ++i)
      stack->push_back(torch::jit::toIValue(results[i], returns[i].type()));
  }

  opal::OperatorHandle op_;
  size_t numArguments_;
  std::vector<size_t> writtenArguments_;
  std::vector<int> writtenReturns_;
  py::object gradKernel_;
};

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Whether every argument and return of `schema` crosses in C++: the kinds
/// toOpal and toTorch convert (a Generator, a Dimname or a Storage does
/// not; such an op keeps opal.torch's Python kernels).
bool crossesNatively(const c10::FunctionSchema &schema) {
  auto supported = [](const c10::TypePtr &type) {
    c10::TypePtr inner = type;
    if (auto optional = inner->cast<c10::OptionalType>())
      inner = optional->getElementType();
    if (auto list = inner->cast<c10::ListType>())
      inner = list->getElementType();
    if (auto optional = inner->cast<c10::OptionalType>())
      inner = optional->getElementType();
    switch (inner->kind()) {
    case c10::TypeKind::TensorType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::ComplexType:
    case c10::TypeKind::NumberType:
    case c10::TypeKind::StringType:
    case c10::TypeKind::DeviceObjType:
    case c10::TypeKind::NoneType:
      return true;
    default:
      return false;
    }
  };
  for (const c10::Argument &argument : schema.arguments())
    if (!supported(argument.type()) && !supported(argument.real_type()))
      return false;
  for (const c10::Argument &ret : schema.returns())
    if (!supported(ret.type()))
      return false;
  return !schema.is_vararg() && !schema.is_varret();
}

/// torch.library's IMPL libraries of this module, per namespace and key.
/// Never destroyed: PyTorch's dispatcher, a static of libtorch, may be gone
/// by the time this module's statics would be.
torch::Library &implLibrary(const std::string &ns, c10::DispatchKey key) {
  static auto *libraries =
      new std::map<std::pair<std::string, c10::DispatchKey>, std::unique_ptr<torch::Library>>();
  std::unique_ptr<torch::Library> &library = (*libraries)[{ns, key}];
  if (!library)
    library = std::make_unique<torch::Library>(torch::Library::IMPL, ns, key, __FILE__,
                                               __LINE__);
  return *library;
}

/// Registers C++ kernels at CPU and AutogradCPU for op `name` (`ns::op`,
/// defined in PyTorch by opal.torch) with overload `overload`; returns
/// false, registering nothing, when its schema has a kind of value that
/// does not cross in C++.
bool registerKernels(const std::string &name, const std::string &overload,
                     py::object gradKernel) {
  c10::optional<c10::OperatorHandle> torchOp =
      c10::Dispatcher::singleton().findSchema(c10::OperatorName(name, overload));
  if (!torchOp)
    throw opal::OpalError("opal.torch: PyTorch has no op " + name +
                          (overload.empty() ? "" : "." + overload));
  std::optional<opal::OperatorHandle> opalOp =
      opal::Dispatcher::singleton().findSchema(opal::OperatorName{name, overload});
  if (!opalOp)
    throw opal::OpalError("opal.torch: opal has no op " + name +
                          (overload.empty() ? "" : "." + overload));
  const c10::FunctionSchema &schema = torchOp->schema();
  if (!crossesNatively(schema))
    return false;
  std::string ns = name.substr(0, name.find("::"));
  std::string implName = name.substr(ns.size() + 2) + (overload.empty() ? "" : "." + overload);
  implLibrary(ns, c10::DispatchKey::CPU)
        .impl(implName.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                          std::make_unique<TorchKernel>(*opalOp, schema, py::object())));
  implLibrary(ns, c10::DispatchKey::AutogradCPU)
        .impl(implName.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                          std::make_unique<TorchKernel>(*opalOp, schema, std::move(gradKernel))));
  return true;
}

} // namespace

PYBIND11_MODULE(_torch_C, m) {
  m.doc() = "opal.torch's C++ kernels: opal ops called from PyTorch's dispatcher.";
  m.def("register_kernels", &registerKernels, py::arg("name"), py::arg("overload"),
        py::arg("grad_kernel"),
        "Registers C++ kernels at PyTorch's CPU and AutogradCPU keys for an opal op that "
        "opal.torch defined in PyTorch; False when its schema has a value kind that does not "
        "cross in C++ (it then keeps the Python kernels).");
}
