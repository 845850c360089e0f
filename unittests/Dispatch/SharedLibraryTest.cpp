//===- SharedLibraryTest.cpp - Static registration through dlopen ---------===//

#include "TestHelpers.h"

#include <dlfcn.h>

using namespace opal;
using namespace opal::test;

namespace {

TEST(SharedLibrary, LoadingRegistersAndUnloadingRemoves) {
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"loadedlib::double_size", ""}));
  void *handle = dlopen(OPAL_TEST_OPLIB_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto op = Dispatcher::singleton().findSchemaOrThrow("loadedlib::double_size", "");
  EXPECT_EQ(op.typed<Tensor(const Tensor &)>().call(cpuTensor()).size(0), 4);
  ASSERT_EQ(dlclose(handle), 0);
  EXPECT_FALSE(Dispatcher::singleton().findSchema({"loadedlib::double_size", ""}));
}

} // namespace
