//===- LoaderTrial.h - A shared library tried by the system's loader first -===//
//
// dlopen runs the system's dynamic loader inside this process, and the
// loader trusts the file: a damaged dynamic section, hash table or
// relocation crashes the process. Support/ElfFile.h checks the headers,
// the dynamic section and the relocations' targets first; the rest the
// loader reads (symbol and hash tables, version records) is tried here: the
// loader maps and relocates the library, with its dependencies, in a child
// process (ldd's trace mode, LD_TRACE_LOADED_OBJECTS with LD_BIND_NOW), and
// a crash there refuses the file instead of ending this process. The
// library's own initializers are not run by the trial: code they run is
// not checked.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AOT_LOADERTRIAL_H
#define OPAL_AOT_LOADERTRIAL_H

#include <string>

namespace opal::aot {

/// Why the system's dynamic loader cannot load `path` ("" if it can, or if
/// no loader can be run to try): it crashed on it (the signal), or did not
/// finish within 30 s. The message names the file.
std::string loaderTrialProblem(const std::string &path);

} // namespace opal::aot

#endif // OPAL_AOT_LOADERTRIAL_H
