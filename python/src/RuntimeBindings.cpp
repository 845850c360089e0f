//===- RuntimeBindings.cpp - opal.Tensor, dtypes, devices, numpy, DLPack --===//

#include "Bindings.h"

#include "opal/Autograd/InPlace.h"

#include "opal/CUDA/Device.h"
#include "PythonValues.h"

#include "opal/Runtime/Allocator.h"
#include "opal/Runtime/DLPack.h"
#include "opal/Runtime/Factories.h"
#include "opal/Runtime/ScalarElement.h"
#include "opal/Runtime/Generator.h"
#include "opal/JIT/ParallelRuntime.h"
#include "opal/Runtime/Parallel.h"

#include <pybind11/numpy.h>

#include <limits>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;
using namespace opal::python;

namespace {

/// `opal.float32` and friends: one object per ScalarType.
struct DType {
  ScalarType type;
};

constexpr ScalarType kDTypes[] = {
    ScalarType::Bool,  ScalarType::Byte,   ScalarType::Char,         ScalarType::Short,
    ScalarType::Int,   ScalarType::Long,   ScalarType::Half,         ScalarType::BFloat16,
    ScalarType::Float, ScalarType::Double, ScalarType::ComplexFloat, ScalarType::ComplexDouble};

std::vector<py::object> &dtypeObjects() {
  // Leaked: these live as long as the interpreter.
  static auto *objects = new std::vector<py::object>(16);
  return *objects;
}

const char *numpyFormat(ScalarType type) {
  switch (type) {
  case ScalarType::Bool: return "?";
  case ScalarType::Byte: return "B";
  case ScalarType::Char: return "b";
  case ScalarType::Short: return "h";
  case ScalarType::Int: return "i";
  case ScalarType::Long: return "q";
  case ScalarType::Half: return "e";
  case ScalarType::Float: return "f";
  case ScalarType::Double: return "d";
  case ScalarType::ComplexFloat: return "Zf";
  case ScalarType::ComplexDouble: return "Zd";
  default: return nullptr;
  }
}

std::optional<ScalarType> fromNumpyDType(const py::dtype &dtype) {
  char kind = dtype.kind();
  size_t size = dtype.itemsize();
  switch (kind) {
  case 'b': return ScalarType::Bool;
  case 'u': if (size == 1) return ScalarType::Byte; break;
  case 'i':
    if (size == 1) return ScalarType::Char;
    if (size == 2) return ScalarType::Short;
    if (size == 4) return ScalarType::Int;
    if (size == 8) return ScalarType::Long;
    break;
  case 'f':
    if (size == 2) return ScalarType::Half;
    if (size == 4) return ScalarType::Float;
    if (size == 8) return ScalarType::Double;
    break;
  case 'c':
    if (size == 8) return ScalarType::ComplexFloat;
    if (size == 16) return ScalarType::ComplexDouble;
    break;
  }
  return std::nullopt;
}

Device parseDevice(const std::string &text) {
  auto device = Device::parse(text);
  if (!device)
    throw py::value_error(device.error().message());
  return *device;
}

py::array toNumpy(const Tensor &t) {
  if (t.device().isCUDA())
    throw py::type_error("can't convert " + t.device().str() +
                         " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                         "host memory first.");
  if (!t.device().isCPU())
    throw py::type_error("can't convert " + t.device().str() +
                         " tensor to numpy; only cpu tensors can be converted");
  const char *format = numpyFormat(t.dtype());
  if (!format && t.dtype() == ScalarType::BFloat16)
    throw py::type_error("Got unsupported ScalarType bfloat16: numpy has no bfloat16 dtype; "
                         "convert first with t.float().numpy(), which is exact (every "
                         "bfloat16 value is a float32)");
  if (!format)
    throw py::type_error(std::string("Got unsupported ScalarType ") + dtypeName(t.dtype()));
  size_t itemSize = elementSize(t.dtype());
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : t.strides())
    strides.push_back(s * static_cast<py::ssize_t>(itemSize));
  // The array's base owns a reference to the tensor, so the memory lives
  // while either side does.
  py::object base = py::cast(t);
  py::array array(py::dtype(format), shape, strides, t.dataPtr(), base);
  // Read-only memory stays read-only on the numpy side too.
  if (t.impl()->storage() && t.impl()->storage()->readOnly())
    array.attr("setflags")(py::arg("write") = false);
  return array;
}

void releaseNumpyArray(void *, void *context) {
  py::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject *>(context));
}

Tensor fromNumpy(py::array array) {
  // '>' on a little-endian machine (and '<' on a big-endian one).
  char order = array.dtype().byteorder();
  if (order == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? '>' : '<'))
    throw py::value_error("given numpy array has byte order different from the native byte "
                          "order. Conversion between byte orders is currently not supported.");
  auto type = fromNumpyDType(array.dtype());
  if (!type)
    throw py::type_error("can't convert np.ndarray of type " +
                         py::str(array.dtype()).cast<std::string>() +
                         ". The only supported types are: float64, float32, float16, "
                         "complex64, complex128, int64, int32, int16, int8, uint8, and bool.");
  size_t itemSize = elementSize(*type);
  // Kernels and copies load whole elements (PyTorch takes such arrays).
  if (reinterpret_cast<uintptr_t>(array.data()) % itemSize != 0)
    throw py::value_error("from_numpy: the array's data is not aligned to its element size (" +
                          std::to_string(itemSize) + " bytes); copy it first "
                          "(np.require(a, requirements='A'))");
  DimVector sizes, strides;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    py::ssize_t stride = array.strides(i);
    if (stride < 0 || stride % static_cast<py::ssize_t>(itemSize) != 0)
      throw py::value_error("At least one stride in the given numpy array is negative "
                            "or not a multiple of the element size; copy the array "
                            "first (np.ascontiguousarray)");
    sizes.push_back(array.shape(i));
    strides.push_back(stride / static_cast<py::ssize_t>(itemSize));
  }
  std::optional<size_t> nbytes = storageBytesFor(sizes, strides, 0, itemSize);
  if (!nbytes)
    throw py::value_error("from_numpy: the array's sizes and strides overflow");
  PyObject *owner = array.ptr();
  Py_INCREF(owner); // released by the storage's deleter
  auto storage = IntrusivePtr<StorageImpl>::make(const_cast<void *>(array.data()), *nbytes,
                                                 Device(DeviceType::CPU), &releaseNumpyArray,
                                                 owner);
  if (!array.writeable())
    storage->setReadOnly();
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), *type,
                                               Device(DeviceType::CPU), std::move(sizes),
                                               std::move(strides), 0));
}

void deleteCapsule(PyObject *capsule) {
  // A capsule that was never consumed still owns its DLManagedTensor.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto *managed = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed && managed->deleter)
      managed->deleter(managed);
  }
}

py::capsule toDLPackCapsule(const Tensor &t) {
  auto managed = toDLPack(t);
  if (!managed)
    throw py::type_error(managed.error().message());
  return py::reinterpret_steal<py::capsule>(PyCapsule_New(*managed, "dltensor", &deleteCapsule));
}

void releaseWithGil(DLManagedTensor *managed) {
  if (!managed->deleter)
    return;
  if (Py_IsInitialized()) {
    PyGILState_STATE state = PyGILState_Ensure();
    managed->deleter(managed);
    PyGILState_Release(state);
  } else {
    managed->deleter(managed);
  }
}

Tensor fromDLPackObject(py::object object) {
  py::object capsule = object;
  // (A capsule first: the bridge hands one per tensor, and a failed
  // attribute lookup costs a third of a microsecond.)
  if (!PyCapsule_CheckExact(object.ptr()) && py::hasattr(object, "__dlpack__")) {
    // A producer on a CUDA device gets the stream opal will use the memory
    // on, so that it orders its pending work before opal's (the protocol's
    // handshake; PyTorch synchronizes nothing without it).
    std::optional<uintptr_t> stream;
    if (py::hasattr(object, "__dlpack_device__")) {
      py::tuple device = object.attr("__dlpack_device__")();
      if (device.size() == 2 && device[0].cast<int>() == kDLCUDA)
        stream = reinterpret_cast<uintptr_t>(cuda::currentStream(device[1].cast<int>()));
    }
    capsule = stream ? object.attr("__dlpack__")(py::arg("stream") = *stream)
                     : object.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw py::type_error("from_dlpack expects an object with __dlpack__ or an unused "
                         "'dltensor' capsule, got " + pythonTypeName(object));
  auto *managed = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  auto tensor = fromDLPack(managed, &releaseWithGil);
  if (!tensor)
    throw py::type_error(tensor.error().message());
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  return std::move(*tensor);
}

std::vector<int64_t> shapeArgs(py::args args) {
  // view(2, 3), view((2, 3)) and view([2, 3]) all mean the same.
  if (args.size() == 1 && (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0])))
    return py::cast<std::vector<int64_t>>(args[0]);
  return py::cast<std::vector<int64_t>>(args);
}

/// `tensor[key]` in two parts: the view that ints, slices, None and `...`
/// make, and, when the key holds tensors (advanced indexing), the indices
/// aten::index.Tensor takes into that view: the tensors where they stand,
/// ints among them as 0-d index tensors (PyTorch's rule), None elsewhere.
std::pair<Tensor, std::optional<std::vector<std::optional<Tensor>>>>
indexParts(const Tensor &tensor, py::handle key) {
  py::tuple items = py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key)
                                                   : py::make_tuple(key);
  bool advanced = false;
  int64_t consumed = 0; // tensor dims that items address
  for (py::handle item : items) {
    if (py::isinstance<Tensor>(item)) {
      advanced = true;
      const Tensor &index = item.cast<const Tensor &>();
      bool mask = index.dtype() == ScalarType::Bool || index.dtype() == ScalarType::Byte;
      consumed += mask ? std::max<int64_t>(index.dim(), 1) : 1;
    } else if (!item.is_none() && item.ptr() != Py_Ellipsis) {
      ++consumed;
    }
  }
  if (consumed > tensor.dim())
    throw py::index_error("too many indices for tensor of dimension " +
                          std::to_string(tensor.dim()));
  Tensor result = tensor;
  std::vector<std::optional<Tensor>> indices;
  int64_t dim = 0;
  auto at = [&](int64_t d, std::optional<Tensor> index) {
    if (static_cast<int64_t>(indices.size()) <= d)
      indices.resize(d + 1);
    indices[d] = std::move(index);
  };
  for (py::handle item : items) {
    if (item.ptr() == Py_Ellipsis) {
      dim += tensor.dim() - consumed;
    } else if (item.is_none()) {
      result = result.unsqueeze(dim++);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0)
        throw py::error_already_set();
      if (step <= 0)
        throw py::value_error("step must be greater than zero");
      result = result.slice(dim++, start, stop, step);
    } else if (py::isinstance<Tensor>(item)) {
      const Tensor &index = item.cast<const Tensor &>();
      at(dim, index);
      bool mask = index.dtype() == ScalarType::Bool || index.dtype() == ScalarType::Byte;
      dim += mask ? std::max<int64_t>(index.dim(), 1) : 1;
    } else if (PyIndex_Check(item.ptr()) && !PyBool_Check(item.ptr())) {
      int64_t i = py::cast<int64_t>(item);
      if (advanced) { // an index tensor like the others
        Tensor scalar = Tensor::empty({}, ScalarType::Long);
        *scalar.data<int64_t>() = i;
        at(dim++, tensor.device().isCPU() ? scalar : scalar.to(tensor.device()));
        continue;
      }
      int64_t size = result.sizes()[dim];
      if (i < -size || i >= size)
        throw py::index_error("index " + std::to_string(i) + " is out of bounds for "
                              "dimension " + std::to_string(dim) + " with size " +
                              std::to_string(size));
      result = result.select(dim, i);
    } else {
      throw py::index_error("only integers, slices (`:`), ellipsis (`...`), None and "
                            "tensors are valid indices (got " + pythonTypeName(item) + ")");
    }
  }
  if (!advanced)
    return {result, std::nullopt};
  return {result, indices};
}

/// `tensor[key]`: a view, or for index tensors aten::index.Tensor's result
/// (called through the dispatcher, as every eager op is).
py::object indexTensor(const Tensor &tensor, py::handle key) {
  auto [view, indices] = indexParts(tensor, key);
  if (!indices)
    return py::cast(view);
  py::object op = py::module_::import("opal").attr("ops").attr("aten").attr("index").attr(
      "Tensor");
  return op(view, py::cast(*indices));
}

} // namespace

py::dict opal::python::allocatorStatsDict(const AllocatorStats &stats) {
  py::dict out;
  out["allocations"] = stats.allocations;
  out["cache_hits"] = stats.cacheHits;
  out["bytes_in_use"] = stats.bytesInUse;
  out["bytes_cached"] = stats.bytesCached;
  return out;
}

py::object opal::python::dtypeObject(ScalarType type) {
  return dtypeObjects()[static_cast<size_t>(type)];
}

std::optional<ScalarType> opal::python::scalarTypeOf(py::handle object) {
  if (py::isinstance<DType>(object))
    return py::cast<const DType &>(object).type;
  return std::nullopt;
}

void opal::python::bindRuntime(py::module_ &m) {
  py::class_<DType>(m, "dtype", "An element type: opal.float32, opal.int64, ...")
      .def_property_readonly("itemsize", [](const DType &d) { return elementSize(d.type); })
      .def_property_readonly("is_floating_point", [](const DType &d) { return isFloatingType(d.type); })
      .def_property_readonly("is_complex", [](const DType &d) { return isComplexType(d.type); })
      .def("__repr__", [](const DType &d) { return std::string("opal.") + dtypeName(d.type); })
      .def("__reduce__", [](const DType &d) { return std::string(dtypeName(d.type)); })
      .def("__int__", [](const DType &d) { return static_cast<int>(d.type); },
           "PyTorch's ScalarType number (float32 is 6).");
  for (ScalarType type : kDTypes) {
    py::object object = py::cast(DType{type});
    dtypeObjects()[static_cast<size_t>(type)] = object;
    m.attr(dtypeName(type)) = object;
  }

  py::class_<Device>(m, "device", "Where a tensor lives: cpu, cuda:N or meta.")
      .def(py::init([](const std::string &text) { return parseDevice(text); }),
           py::arg("type"))
      .def_property_readonly("type", [](const Device &d) {
        std::string text = d.str();
        return text.substr(0, text.find(':'));
      })
      .def_property_readonly("index", [](const Device &d) -> std::optional<int> {
        return d.hasIndex() ? std::optional<int>(d.index()) : std::nullopt;
      })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device &d) {
        std::string type = d.str().substr(0, d.str().find(':'));
        return d.hasIndex() ? "device(type='" + type + "', index=" + std::to_string(d.index()) + ")"
                            : "device(type='" + type + "')";
      })
      .def("__eq__", [](const Device &a, const Device &b) { return a == b; })
      .def("__eq__", [](const Device &a, const std::string &b) { return a.str() == b; })
      .def("__hash__", [](const Device &d) { return std::hash<std::string>()(d.str()); });

  py::class_<Tensor>(m, "Tensor", py::dynamic_attr(), "An n-dimensional array on a device.")
      .def_property_readonly("shape", [](const Tensor &t) { return py::tuple(py::cast(t.sizes().vec())); })
      .def_property_readonly("dtype", [](const Tensor &t) { return dtypeObject(t.dtype()); })
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("ndim", &Tensor::dim)
      .def_property_readonly("is_meta", [](const Tensor &t) { return t.device().isMeta(); })
      .def_property_readonly("is_cpu", [](const Tensor &t) { return t.device().isCPU(); })
      .def("size", [](const Tensor &t, std::optional<int64_t> dim) -> py::object {
             if (!dim)
               return py::tuple(py::cast(t.sizes().vec()));
             return py::int_(t.sizes()[wrapDim(*dim, t.dim())]);
           }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor &t, std::optional<int64_t> dim) -> py::object {
             if (!dim)
               return py::tuple(py::cast(t.strides().vec()));
             return py::int_(t.strides()[wrapDim(*dim, t.dim())]);
           }, py::arg("dim") = py::none())
      .def("numel", &Tensor::numel)
      .def("dim", &Tensor::dim)
      .def("__len__", [](const Tensor &t) {
        if (t.dim() == 0)
          throw py::type_error("len() of a 0-d tensor");
        return t.sizes()[0];
      })
      .def("storage_offset", &Tensor::storageOffset)
      .def("data_ptr", [](const Tensor &t) { return reinterpret_cast<uintptr_t>(t.dataPtr()); })
      .def("_storage",
           [](const Tensor &t) {
             // (the storage's address and bytes: which views share it, and
             // what opal.save writes once for all of them; (0, 0) on meta)
             const Storage &storage = t.impl()->storage();
             if (!storage)
               return py::make_tuple(uintptr_t(0), size_t(0));
             return py::make_tuple(reinterpret_cast<uintptr_t>(storage->data()),
                                   storage->nbytes());
           })
      .def("is_contiguous", &Tensor::isContiguous)
      .def("contiguous", &Tensor::contiguous)
      .def("clone", &Tensor::clone)
      .def("view", [](const Tensor &t, py::args shape) { return t.view(shapeArgs(shape)); })
      .def("reshape", [](const Tensor &t, py::args shape) { return t.reshape(shapeArgs(shape)); })
      .def("expand", [](const Tensor &t, py::args shape) { return t.expand(shapeArgs(shape)); })
      .def("permute", [](const Tensor &t, py::args dims) { return t.permute(shapeArgs(dims)); })
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("t", &Tensor::t)
      .def("squeeze", [](const Tensor &t, std::optional<int64_t> dim) {
             return dim ? t.squeeze(*dim) : t.squeeze();
           }, py::arg("dim") = py::none())
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def("__getitem__", &indexTensor)
      .def("_index_parts", [](const Tensor &t, py::handle key) {
        auto [view, indices] = indexParts(t, key);
        return py::make_tuple(view, indices ? py::cast(*indices) : py::none());
      })
      .def("to", [](const Tensor &t, py::object target) {
        if (auto type = scalarTypeOf(target))
          return t.to(*type);
        Device device = py::isinstance<Device>(target)
                            ? target.cast<Device>()
                            : parseDevice(py::str(target).cast<std::string>());
        return t.to(device);
      })
      .def("cpu", [](const Tensor &t) { return t.to(Device(DeviceType::CPU)); })
      .def("cuda", [](const Tensor &t, std::optional<int> index) {
             return t.to(Device(DeviceType::CUDA, static_cast<int8_t>(index ? *index : -1)));
           }, py::arg("device") = py::none())
      .def_property_readonly("is_cuda", [](const Tensor &t) { return t.device().isCUDA(); })
      .def("copy_", [](Tensor &t, const Tensor &source) {
             autograd::copyInPlace(t, source);
             return t;
           })
      .def("fill_", [](Tensor &t, py::handle value) {
             // A 0-d tensor fills with its value, as PyTorch's fill_.Tensor.
             py::object number = py::reinterpret_borrow<py::object>(value);
             if (py::isinstance<Tensor>(value)) {
               int64_t dims = py::cast<const Tensor &>(value).dim();
               if (dims != 0)
                 throw OpalError("fill_ only supports 0-dimension value tensor but got tensor "
                                 "with " + std::to_string(dims) + " dimensions.");
               number = value.attr("item")();
             }
             autograd::fillInPlace(t, toScalar(number, "fill_(): argument 'value'"));
             return t;
           })
      .def("numpy", &toNumpy)
      .def("__array__", [](const Tensor &t, py::object dtype) {
             py::array array = toNumpy(t);
             return dtype.is_none() ? py::object(array) : array.attr("astype")(dtype);
           }, py::arg("dtype") = py::none())
      // The array API's protocol (2023.12): `max_version` is accepted and
      // the capsule is always a DLPack 0.x ("dltensor") one, which the
      // protocol allows a producer without versioned capsules to return;
      // `dl_device` other than the tensor's own exports a copy there
      // (refused with copy=False); copy=True exports a copy.
      .def("__dlpack__", [](const Tensor &t, py::object, py::object maxVersion,
                            py::object dlDevice, py::object copy) {
             auto pairOf = [](py::object value, const char *name) {
               try {
                 return py::cast<std::pair<int, int>>(value);
               } catch (const py::cast_error &) {
                 throw py::type_error(std::string("__dlpack__: ") + name +
                                      " must be a pair of ints, got " +
                                      py::str(py::repr(value)).cast<std::string>());
               }
             };
             if (!maxVersion.is_none())
               pairOf(maxVersion, "max_version"); // only checked
             std::optional<bool> copies;
             if (!copy.is_none()) {
               if (!py::isinstance<py::bool_>(copy))
                 throw py::type_error("__dlpack__: copy must be True, False or None");
               copies = copy.cast<bool>();
             }
             Tensor out = t;
             if (!dlDevice.is_none()) {
               auto [type, index] = pairOf(dlDevice, "dl_device");
               std::optional<Device> target;
               if (type == kDLCPU && index == 0)
                 target = Device(DeviceType::CPU);
               else if (type == kDLCUDA && index >= 0 && index < 128)
                 target = Device(DeviceType::CUDA, static_cast<int8_t>(index));
               if (!target)
                 throw py::buffer_error("__dlpack__: opal cannot export to DLPack device (" +
                                        std::to_string(type) + ", " + std::to_string(index) +
                                        "); it exports cpu (1, 0) and cuda (2, N) tensors");
               if (*target != t.device()) {
                 if (copies == false)
                   throw py::buffer_error("__dlpack__: the tensor is on " + t.device().str() +
                                          ", not on the requested device, and copy=False");
                 out = t.to(*target);
                 copies = false; // the copy is made
               }
             }
             if (copies == true)
               out = t.clone();
             // The consumer may use the memory on any stream: opal's work
             // on it is finished first.
             if (out.device().isCUDA())
               cuda::synchronize(out.device().index());
             return toDLPackCapsule(out);
           }, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const Tensor &t) {
        if (t.device().isCUDA())
          return py::make_tuple(static_cast<int>(kDLCUDA), static_cast<int>(t.device().index()));
        if (!t.device().isCPU())
          throw py::type_error("only cpu and cuda tensors support DLPack");
        return py::make_tuple(static_cast<int>(kDLCPU), 0);
      });

  // Threads of compiled kernels (Runtime/Parallel.h), with PyTorch's words.
  m.def("get_num_threads", [] { return getNumThreads(); },
        "The threads compiled CPU kernels may use (OPAL_NUM_THREADS, else the cores "
        "this process may run on).");
  m.def("set_num_threads", [](py::object threads) {
    if (!py::isinstance<py::int_>(threads) || py::isinstance<py::bool_>(threads))
      throw std::runtime_error("set_num_threads expects an int, but got " +
                               std::string(py::str(py::type::of(threads).attr("__name__"))));
    int overflow = 0;
    long long count = PyLong_AsLongLongAndOverflow(threads.ptr(), &overflow);
    if (overflow > 0)
      count = std::numeric_limits<int32_t>::max(); // more than any machine has
    if (overflow < 0 || count < 1 || !setNumThreads(count))
      throw std::runtime_error("set_num_threads expects a positive integer");
  }, py::arg("threads"), "Sets the threads compiled CPU kernels may use.");
  m.def("_num_threads_knob_error", [] { return numThreadsKnobError(); });
  // Whose threads run compiled kernels' parallel nests (JIT/ParallelRuntime.h):
  // opal.torch chooses PyTorch's libgomp.
  m.def("_set_parallel_runtime", [](const std::string &name) {
    if (name != "llvm" && name != "gnu")
      throw py::value_error("_set_parallel_runtime: expected 'llvm' or 'gnu', got '" + name +
                            "'");
    auto done = jit::setParallelRuntime(name == "gnu" ? jit::ParallelRuntime::GNU
                                                      : jit::ParallelRuntime::LLVM);
    if (!done)
      throw std::runtime_error(done.error().message());
  }, py::arg("name"));
  m.def("_parallel_runtime", [] { return jit::parallelRuntimeName(); });
  m.def(
      "_view_storage",
      [](const Tensor &base, const DType &dtype, const std::vector<int64_t> &sizes,
         const std::vector<int64_t> &strides, int64_t offset) {
        // A tensor of any dtype over `base`'s storage (opal.load's tensors
        // over the bytes it read); TensorImpl refuses one that reaches past
        // the storage's end.
        return Tensor(IntrusivePtr<TensorImpl>::make(
            base.impl()->storage(), dtype.type, base.device(), DimVector(IntArrayRef(sizes)),
            DimVector(IntArrayRef(strides)), offset));
      },
      py::arg("base"), py::arg("dtype"), py::arg("sizes"), py::arg("strides"),
      py::arg("offset"));
  m.def("from_numpy", &fromNumpy, py::arg("array"),
        "A tensor sharing memory with a numpy array.");
  m.def("from_dlpack", &fromDLPackObject, py::arg("ext_tensor"),
        "A tensor sharing memory with a DLPack producer (numpy, PyTorch, ...).");
  m.def("_empty", [](std::vector<int64_t> sizes, const DType &dtype, const Device &device) {
    return Tensor::empty(sizes, dtype.type, device);
  });
  m.def("_full", [](std::vector<int64_t> sizes, py::handle value, const DType &dtype,
                    const Device &device) {
    Scalar fill = toScalar(value, "full(): argument 'fill_value'");
    Tensor t = Tensor::empty(sizes, dtype.type, device);
    fillWithScalar(t, fill);
    return t;
  });
  m.def("_arange", [](double start, double end, double step, const DType &dtype, const Device &device) {
    return arange(start, end, step, {dtype.type, device});
  });
  m.def("manual_seed", [](uint64_t seed) { manualSeedAll(seed); }, py::arg("seed"),
        "Seeds the generator of every device; the offsets start again at 0.");
  m.def("_default_generator_state", [](const Device &device) {
    RandomState state = defaultGenerator(device.type()).state();
    return py::make_tuple(state.seed, state.offset);
  });
  m.def("_set_default_generator_state", [](const Device &device, uint64_t seed, uint64_t offset) {
    defaultGenerator(device.type()).setState({seed, offset});
  });
  m.def("_seed_default_generators", [] {
    uint64_t seed = defaultGenerator(DeviceType::CPU).seedNondeterministically();
    defaultGenerator(DeviceType::CUDA).manualSeed(seed);
    return seed;
  });
  m.def("_allocator_stats",
        [] { return allocatorStatsDict(CPUCachingAllocator::singleton().stats()); });
  m.def("_empty_cache", [] { CPUCachingAllocator::singleton().emptyCache(); });
}
