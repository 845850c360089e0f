//===- OpLibraryFile.h - Reading the schemas of op-library files -*- C++ -*-===//
//
// An op library is an MLIR file with one `opal.library "ns" { ... }` per
// namespace, holding `opal.def "schema"` ops (and, later, decompositions and
// kernels). Loading happens in two steps, because the file's own bodies may
// use the ops it defines: the schemas are read first (scanning for the
// `opal.def "..."` strings, which needs no MLIR, so the Python runtime can
// load the same files), their dialects registered, then the whole file is
// parsed and verified.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_OPLIBRARYFILE_H
#define OPAL_SCHEMA_OPLIBRARYFILE_H

#include "opal/Schema/FunctionSchema.h"
#include "opal/Support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace opal {

/// What an op-library text declares, found without MLIR.
struct OpLibraryContents {
  /// The schemas, with their namespaces filled in from `opal.library`.
  std::vector<FunctionSchema> schemas;
  /// The ops with an `opal.decomposition`, as "ns::op" or "ns::op.overload".
  std::vector<std::string> decomposed;
  /// The `opal.precompile "op" "(specialization)"` entries, in order.
  struct Precompile {
    std::string op;             ///< "ns::op" or "ns::op.overload"
    std::string specialization; ///< "(float32[?], float)"
    std::string location;       ///< "file:line:column" of the specialization
  };
  std::vector<Precompile> precompiled;
};

/// How deeply an op-library text may nest brackets ('{', '(' and '['
/// together): deeper texts are refused before MLIR parses them (its
/// parser recurses once per level).
constexpr size_t kMaxOpLibraryNesting = 256;

/// An error (naming the file, line and column) where `text`, read as MLIR,
/// nests brackets deeper than kMaxOpLibraryNesting. scanOpLibrary checks
/// it first; opal-opt checks its input files too.
Expected<bool> checkTextNesting(std::string_view text, std::string_view fileName);

/// Scans an op-library text. Errors name the file, line and column.
Expected<OpLibraryContents> scanOpLibrary(std::string_view text, std::string_view fileName);

/// The schemas an op-library text defines, with their namespaces filled in
/// from the enclosing `opal.library`. Errors name the file, line and column.
Expected<std::vector<FunctionSchema>> scanOpLibrarySchemas(std::string_view text,
                                                           std::string_view fileName);

/// The text of an op-library file; an error (naming the file) if it cannot
/// be read or is a directory.
Expected<std::string> readOpLibraryText(const std::string &path);

/// Reads a file and scans it (scanOpLibrarySchemas).
Expected<std::vector<FunctionSchema>> readOpLibrarySchemas(const std::string &path);

} // namespace opal

#endif // OPAL_SCHEMA_OPLIBRARYFILE_H
