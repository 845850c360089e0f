/* A fake CUDA driver for testing opal's launch path on machines without a
 * GPU. It implements every entry point opal resolves (DriverSymbols.def):
 * one device whose memory is host memory, copies by memcpy, modules that
 * keep their image, and launches that compute nothing but are written, one
 * line each, to the file named by FAKE_CUDA_LOG, with their grid, block,
 * shared bytes and, for PTX images, every parameter's value (read by the
 * types the PTX declares). So tests can check what opal loads and launches,
 * with which sizes and pointers; never the kernels' results.
 *
 * Knobs: FAKE_CUDA_CAPABILITY (default 90), FAKE_CUDA_FAIL_LAUNCH=1 (every
 * launch fails with CUDA_ERROR_LAUNCH_FAILED), FAKE_CUDA_REJECT_IMAGE=1
 * (every image fails with CUDA_ERROR_NO_BINARY_FOR_GPU), FAKE_CUDA_FAULT=1
 * (a kernel that faults, as a real one reports it: its launch succeeds,
 * and from then on the context is broken for good, every call that uses
 * it failing with CUDA_ERROR_ILLEGAL_ADDRESS, frees and synchronizations
 * included).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long CUdeviceptr;

static void logLine(const char *format, ...) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path)
    return;
  FILE *file = fopen(path, "a");
  if (!file)
    return;
  va_list args;
  va_start(args, format);
  vfprintf(file, format, args);
  va_end(args);
  fputc('\n', file);
  fclose(file);
}

static int flag(const char *name) {
  const char *value = getenv(name);
  return value && strcmp(value, "1") == 0;
}

/* FAKE_CUDA_FAULT: set by the first launch; every later call that uses the
 * context then fails, as after a real kernel's fault (a sticky error). */
static int faulted;
#define STICKY()                                                                                   \
  do {                                                                                             \
    if (faulted)                                                                                   \
      return 700;                                                                                  \
  } while (0)

int cuGetErrorName(int error, const char **name) {
  switch (error) {
  case 0: *name = "CUDA_SUCCESS"; return 0;
  case 700: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  case 209: *name = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
  case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 719: *name = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
  default: return 1;
  }
}
int cuGetErrorString(int error, const char **text) {
  switch (error) {
  case 209: *text = "no kernel image is available for execution on the device"; return 0;
  case 700: *text = "an illegal memory access was encountered"; return 0;
  case 500: *text = "named symbol not found"; return 0;
  case 719: *text = "unspecified launch failure"; return 0;
  default: return 1;
  }
}
int cuInit(unsigned flags) { return 0; }
int cuDriverGetVersion(int *version) { *version = 12040; return 0; }
int cuDeviceGetCount(int *count) { *count = 1; return 0; }
int cuDeviceGet(int *device, int ordinal) { *device = ordinal; return ordinal == 0 ? 0 : 101; }
int cuDeviceGetName(char *name, int length, int device) {
  snprintf(name, (size_t)length, "opal fake device");
  return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
  const char *capability = getenv("FAKE_CUDA_CAPABILITY");
  int cc = capability ? atoi(capability) : 90;
  switch (attribute) {
  case 1: *value = 1024; return 0;    /* max threads per block */
  case 16: *value = 132; return 0;    /* multiprocessors */
  case 75: *value = cc / 10; return 0; /* capability major */
  case 76: *value = cc % 10; return 0; /* capability minor */
  default: *value = 0; return 0;
  }
}
int cuDeviceTotalMem_v2(size_t *bytes, int device) { *bytes = (size_t)80 << 30; return 0; }
static int context;
int cuDevicePrimaryCtxRetain(void **ctx, int device) { *ctx = &context; return 0; }
int cuDevicePrimaryCtxRelease_v2(int device) { return 0; }
int cuCtxSetCurrent(void *ctx) { return 0; }
int cuCtxSynchronize(void) { STICKY(); return 0; }
static int stream;
int cuStreamCreate(void **s, unsigned flags) { *s = &stream; return 0; }
int cuStreamDestroy_v2(void *s) { STICKY(); return 0; }
int cuStreamSynchronize(void *s) { STICKY(); return 0; }

int cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  STICKY();
  void *block = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!block)
    return 2;
  *pointer = (CUdeviceptr)(uintptr_t)block;
  logLine("alloc %zu", bytes);
  return 0;
}
int cuMemFree_v2(CUdeviceptr pointer) {
  STICKY(); /* (leaks the block, as a broken context keeps its memory) */
  free((void *)(uintptr_t)pointer);
  return 0;
}
int cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) {
  STICKY();
  memcpy((void *)(uintptr_t)d, s, n);
  return 0;
}
int cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) {
  STICKY();
  memcpy(d, (const void *)(uintptr_t)s, n);
  return 0;
}
int cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) {
  STICKY();
  memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
  return 0;
}
int cuMemsetD8Async(CUdeviceptr d, unsigned char value, size_t n, void *st) {
  STICKY();
  memset((void *)(uintptr_t)d, value, n);
  return 0;
}

struct Module {
  char *image;
  size_t size;
  int ptx;
};
struct Function {
  char name[256];
  char types[64][8]; /* PTX parameter types: u64, f64, u32, f32 ... */
  int count;         /* -1: unknown (a cubin) */
};

int cuModuleLoadData(void **module, const void *image) {
  STICKY();
  if (flag("FAKE_CUDA_REJECT_IMAGE"))
    return 209;
  const char *bytes = image;
  struct Module *m = calloc(1, sizeof *m);
  if (memcmp(bytes, "\x7f" "ELF", 4) == 0) {
    /* The ELF header's section table ends the file: e_shoff + e_shnum * e_shentsize. */
    uint64_t offset;
    uint16_t entry, count;
    memcpy(&offset, bytes + 0x28, 8);
    memcpy(&entry, bytes + 0x3a, 2);
    memcpy(&count, bytes + 0x3c, 2);
    m->size = offset + (uint64_t)entry * count;
    m->ptx = 0;
  } else if (strstr(bytes, ".version") && strstr(bytes, ".target")) {
    m->size = strlen(bytes);
    m->ptx = 1;
  } else {
    free(m);
    return 200; /* CUDA_ERROR_INVALID_IMAGE */
  }
  m->image = malloc(m->size + 1);
  memcpy(m->image, bytes, m->size);
  m->image[m->size] = 0;
  char target[32] = "?";
  if (m->ptx)
    sscanf(strstr(m->image, ".target ") + 8, "%31[a-z0-9_]", target);
  logLine("load %s %zu %s", m->ptx ? "ptx" : "cubin", m->size, target);
  *module = m;
  return 0;
}
int cuModuleUnload(void *module) { return 0; }

static const char *findBytes(const char *haystack, size_t size, const char *needle) {
  size_t length = strlen(needle);
  for (size_t i = 0; i + length <= size; ++i)
    if (memcmp(haystack + i, needle, length) == 0)
      return haystack + i;
  return NULL;
}

int cuModuleGetFunction(void **function, void *module, const char *name) {
  struct Module *m = module;
  struct Function *f = calloc(1, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  f->count = -1;
  if (m->ptx) {
    char entry[300];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    const char *at = strstr(m->image, entry);
    if (!at) {
      free(f);
      return 500;
    }
    const char *end = strchr(at, ')');
    f->count = 0;
    for (const char *p = strstr(at, ".param ."); p && p < end && f->count < 64;
         p = strstr(p + 1, ".param .")) {
      sscanf(p + 8, "%7[a-z0-9]", f->types[f->count]);
      f->count++;
    }
  } else if (!findBytes(m->image, m->size, name)) {
    free(f);
    return 500;
  }
  logLine("function %s", name);
  *function = f;
  return 0;
}

int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned shared, void *s, void **params,
                   void **extra) {
  struct Function *f = function;
  STICKY();
  if (flag("FAKE_CUDA_FAIL_LAUNCH"))
    return 719;
  if (flag("FAKE_CUDA_FAULT"))
    faulted = 1; /* reported by the calls after this one */
  if (!getenv("FAKE_CUDA_LOG"))
    return 0;
  char line[4096];
  int at = snprintf(line, sizeof line, "launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u params=",
                    f->name, gx, gy, gz, bx, by, bz, shared);
  for (int i = 0; i < f->count && at < (int)sizeof line - 64; ++i) {
    const char *type = f->types[i];
    if (strcmp(type, "f64") == 0)
      at += snprintf(line + at, sizeof line - at, "%s%g", i ? "," : "", *(double *)params[i]);
    else if (strcmp(type, "f32") == 0)
      at += snprintf(line + at, sizeof line - at, "%s%g", i ? "," : "", *(float *)params[i]);
    else if (type[1] == '6') /* u64, b64, s64 */
      at += snprintf(line + at, sizeof line - at, "%s%llu", i ? "," : "",
                     *(unsigned long long *)params[i]);
    else
      at += snprintf(line + at, sizeof line - at, "%s%u", i ? "," : "", *(unsigned *)params[i]);
  }
  if (f->count < 0)
    snprintf(line + at, sizeof line - at, "?");
  logLine("%s", line);
  return 0;
}
