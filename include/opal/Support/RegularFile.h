//===- RegularFile.h - Reading a file that must be a regular one -*- C++ -*-===//
//
// Where a tool or the runtime expects a file of text (an op library, an
// input of opal-opt), a path to a FIFO, socket or device must not make it
// wait for a writer or read forever: the file is opened without blocking
// and read only if the descriptor is a regular file.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_REGULARFILE_H
#define OPAL_SUPPORT_REGULARFILE_H

#include "opal/Support/Expected.h"

#include <string>

namespace opal {

/// Why readRegularFile refused a path.
enum class FileProblem { CannotOpen, Directory, NotRegular, ReadError };

/// The contents of the regular file at `path`; else an error whose message
/// says why (strerror's words, "it is a directory", "it is not a regular
/// file (a FIFO, socket or device)", "read error: ...") and `problem` which.
Expected<std::string> readRegularFile(const std::string &path, FileProblem *problem = nullptr);

} // namespace opal

#endif // OPAL_SUPPORT_REGULARFILE_H
