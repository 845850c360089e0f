//===- HostCpu.cpp - Which CPU features this machine has ------------------===//
//
// An ahead-of-time library records the LLVM feature names its kernels were
// compiled with; before registering it, the loader checks them here with
// CPUID (and XGETBV for the register state the OS saves), without LLVM.
//
//===----------------------------------------------------------------------===//

#include "opal/AOT/OpLibrary.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace opal;

namespace {

#if defined(__x86_64__) || defined(__i386__)
enum Reg : uint8_t { EAX, EBX, ECX, EDX };

struct Feature {
  const char *name; ///< LLVM's name
  uint32_t leaf, subleaf;
  Reg reg;
  uint8_t bit;
};

const Feature kFeatures[] = {
    {"x87", 1, 0, EDX, 0},           {"cx8", 1, 0, EDX, 8},
    {"sse3", 1, 0, ECX, 0},          {"pclmul", 1, 0, ECX, 1},
    {"ssse3", 1, 0, ECX, 9},         {"fma", 1, 0, ECX, 12},
    {"cx16", 1, 0, ECX, 13},         {"sse4.1", 1, 0, ECX, 19},
    {"sse4.2", 1, 0, ECX, 20},       {"crc32", 1, 0, ECX, 20},
    {"movbe", 1, 0, ECX, 22},
    {"popcnt", 1, 0, ECX, 23},       {"aes", 1, 0, ECX, 25},
    {"xsave", 1, 0, ECX, 26},        {"avx", 1, 0, ECX, 28},
    {"f16c", 1, 0, ECX, 29},         {"rdrnd", 1, 0, ECX, 30},
    {"cmov", 1, 0, EDX, 15},         {"mmx", 1, 0, EDX, 23},
    {"fxsr", 1, 0, EDX, 24},         {"sse", 1, 0, EDX, 25},
    {"sse2", 1, 0, EDX, 26},         {"fsgsbase", 7, 0, EBX, 0},
    {"sgx", 7, 0, EBX, 2},
    {"bmi", 7, 0, EBX, 3},           {"avx2", 7, 0, EBX, 5},
    {"bmi2", 7, 0, EBX, 8},          {"ermsb", 7, 0, EBX, 9},
    {"invpcid", 7, 0, EBX, 10},      {"rtm", 7, 0, EBX, 11},
    {"avx512f", 7, 0, EBX, 16},      {"avx512dq", 7, 0, EBX, 17},
    {"rdseed", 7, 0, EBX, 18},       {"adx", 7, 0, EBX, 19},
    {"avx512ifma", 7, 0, EBX, 21},   {"clflushopt", 7, 0, EBX, 23},
    {"clwb", 7, 0, EBX, 24},         {"avx512cd", 7, 0, EBX, 28},
    {"sha", 7, 0, EBX, 29},          {"avx512bw", 7, 0, EBX, 30},
    {"avx512vl", 7, 0, EBX, 31},     {"avx512vbmi", 7, 0, ECX, 1},
    {"pku", 7, 0, ECX, 3},           {"waitpkg", 7, 0, ECX, 5},
    {"avx512vbmi2", 7, 0, ECX, 6},   {"shstk", 7, 0, ECX, 7},
    {"gfni", 7, 0, ECX, 8},
    {"vaes", 7, 0, ECX, 9},          {"vpclmulqdq", 7, 0, ECX, 10},
    {"avx512vnni", 7, 0, ECX, 11},   {"avx512bitalg", 7, 0, ECX, 12},
    {"avx512vpopcntdq", 7, 0, ECX, 14}, {"rdpid", 7, 0, ECX, 22},
    {"kl", 7, 0, ECX, 23},           {"cldemote", 7, 0, ECX, 25},
    {"movdiri", 7, 0, ECX, 27},      {"movdir64b", 7, 0, ECX, 28},
    {"enqcmd", 7, 0, ECX, 29},       {"fsrm", 7, 0, EDX, 4},
    {"uintr", 7, 0, EDX, 5},         {"avx512vp2intersect", 7, 0, EDX, 8},
    {"serialize", 7, 0, EDX, 14},    {"tsxldtrk", 7, 0, EDX, 16},
    {"pconfig", 7, 0, EDX, 18},      {"amx-bf16", 7, 0, EDX, 22},
    {"avx512fp16", 7, 0, EDX, 23},   {"amx-tile", 7, 0, EDX, 24},
    {"amx-int8", 7, 0, EDX, 25},     {"sha512", 7, 1, EAX, 0},
    {"sm3", 7, 1, EAX, 1},           {"sm4", 7, 1, EAX, 2},
    {"raoint", 7, 1, EAX, 3},        {"avxvnni", 7, 1, EAX, 4},
    {"avx512bf16", 7, 1, EAX, 5},    {"cmpccxadd", 7, 1, EAX, 7},
    {"amx-fp16", 7, 1, EAX, 21},     {"hreset", 7, 1, EAX, 22},
    {"avxifma", 7, 1, EAX, 23},      {"avxvnniint8", 7, 1, EDX, 4},
    {"avxneconvert", 7, 1, EDX, 5},  {"amx-complex", 7, 1, EDX, 8},
    {"avxvnniint16", 7, 1, EDX, 10}, {"prefetchi", 7, 1, EDX, 14},
    {"usermsr", 7, 1, EDX, 15},
    {"xsaveopt", 0xd, 1, EAX, 0},
    {"xsavec", 0xd, 1, EAX, 1},      {"xsaves", 0xd, 1, EAX, 3},
    {"ptwrite", 0x14, 0, EBX, 4},    {"widekl", 0x19, 0, EBX, 2},
    {"sahf", 0x80000001, 0, ECX, 0}, {"lzcnt", 0x80000001, 0, ECX, 5},
    {"sse4a", 0x80000001, 0, ECX, 6}, {"sse-unaligned-mem", 0x80000001, 0, ECX, 7},
    {"prfchw", 0x80000001, 0, ECX, 8},
    {"xop", 0x80000001, 0, ECX, 11}, {"lwp", 0x80000001, 0, ECX, 15},
    {"fma4", 0x80000001, 0, ECX, 16}, {"tbm", 0x80000001, 0, ECX, 21},
    {"mwaitx", 0x80000001, 0, ECX, 29}, {"clzero", 0x80000008, 0, EBX, 0},
    {"rdpru", 0x80000008, 0, EBX, 4}, {"wbnoinvd", 0x80000008, 0, EBX, 9},
};

/// LLVM's x86 features that add no instruction a CPU could lack: what every
/// x86-64 CPU has (64bit, nopl), modes, and tuning choices (instruction
/// selection costs, padding, mitigations). evex512 rides on avx512f, which
/// is checked. Any name in neither table is refused: a library built for a
/// feature this opal cannot check does not load (fails closed).
const char *const kNoInstructions[] = {
    "64bit", "nopl", "evex512", "16bit-mode", "32bit-mode", "64bit-mode", "x32",
    "allow-light-256-bit", "branch-hint", "branchfusion", "faster-shift-than-shuffle",
    "harden-sls-ijmp", "harden-sls-ret", "idivl-to-divb", "idivq-to-divl",
    "inline-asm-use-gpr32", "lea-sp", "lea-uses-ag", "lvi-cfi", "lvi-load-hardening",
    "macrofusion", "pad-short-functions", "retpoline", "retpoline-external-thunk",
    "retpoline-indirect-branches", "retpoline-indirect-calls", "sbb-dep-breaking", "seses",
    "soft-float", "tagged-globals", "tuning-fast-imm-vector-shift", "use-glm-div-sqrt-costs",
    "use-slm-arith-costs", "vzeroupper",
};
/// Prefixes of tuning features (costs and preferences only).
const char *const kTuningPrefixes[] = {"false-deps-", "fast-", "no-bypass-delay", "prefer-",
                                       "slow-"};

bool cpuHas(const Feature &feature) {
  unsigned regs[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(feature.leaf, feature.subleaf, &regs[0], &regs[1], &regs[2], &regs[3]))
    return false;
  return regs[feature.reg] >> feature.bit & 1;
}

/// XCR0: the register state the OS saves (AVX needs bits 1-2, AVX-512 5-7).
uint64_t savedState() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1)) // OSXSAVE
    return 0;
  uint32_t low, high;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return uint64_t(high) << 32 | low;
}

/// AVX10.N (and its -512 forms): the AVX10 bit and a version of at least
/// N (CPUID leaf 0x24), with the AVX-512 register state saved.
bool avx10Present(std::string_view name) {
  std::string_view version = name.substr(6, 1); // "avx10.1-512" -> "1"
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 1, &a, &b, &c, &d) || !(d >> 19 & 1) ||
      !__get_cpuid_count(0x24, 0, &a, &b, &c, &d))
    return false;
  return (b & 0xff) >= static_cast<unsigned>(version[0] - '0') && (savedState() & 0xe6) == 0xe6;
}

bool isAvx10(std::string_view name) {
  return name == "avx10.1" || name == "avx10.1-512" || name == "avx10.2" ||
         name == "avx10.2-512";
}

bool present(std::string_view name) {
  if (isAvx10(name))
    return avx10Present(name);
  for (const Feature &feature : kFeatures) {
    if (name != feature.name)
      continue;
    if (!cpuHas(feature))
      return false;
    std::string_view n(feature.name);
    if (n.substr(0, 3) == "avx" || n == "fma" || n == "f16c" || n == "vaes" ||
        n == "vpclmulqdq" || n == "gfni") {
      uint64_t state = savedState();
      if ((state & 6) != 6)
        return false;
      if (n.substr(0, 6) == "avx512" && (state & 0xe0) != 0xe0)
        return false;
    }
    return true;
  }
  return false; // not one of the instruction sets above
}

bool addsNoInstructions(std::string_view name) {
  for (const char *known : kNoInstructions)
    if (name == known)
      return true;
  for (const char *prefix : kTuningPrefixes)
    if (name.substr(0, std::strlen(prefix)) == prefix)
      return true;
  return false;
}

bool known(std::string_view name) {
  if (addsNoInstructions(name) || isAvx10(name))
    return true;
  for (const Feature &feature : kFeatures)
    if (name == feature.name)
      return true;
  return false;
}
#else
bool addsNoInstructions(std::string_view) { return false; }
bool known(std::string_view) { return false; }
bool present(std::string_view) { return false; }
#endif

} // namespace

std::vector<std::string> aot::missingCpuFeatures(std::string_view features) {
  std::vector<std::string> missing;
  while (!features.empty()) {
    size_t comma = features.find(',');
    std::string_view item = features.substr(0, comma);
    features = comma == std::string_view::npos ? std::string_view() : features.substr(comma + 1);
    if (item.size() < 2 || item[0] != '+')
      continue;
    std::string_view name = item.substr(1);
    if (!known(name))
      missing.push_back(std::string(name) + " (unknown to this opal)");
    else if (!addsNoInstructions(name) && !present(name))
      missing.emplace_back(name);
  }
  return missing;
}
