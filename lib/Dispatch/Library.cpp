//===- Library.cpp - Registering operators and kernels --------------------===//

#include "opal/Dispatch/Library.h"

#include "opal/Schema/SchemaParser.h"

#include <cctype>
#include <iostream>

using namespace opal;

const char *opal::toString(Library::Kind kind) {
  switch (kind) {
  case Library::DEF: return "OPAL_LIBRARY";
  case Library::IMPL: return "OPAL_LIBRARY_IMPL";
  case Library::FRAGMENT: return "OPAL_LIBRARY_FRAGMENT";
  }
  return "?";
}

static bool isIdentifier(const std::string &text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key,
                 const char *file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key),
      debug_("registered at " + std::string(file) +
             (line ? ":" + std::to_string(line) : std::string())) {
  if (key_ == DispatchKey::Undefined)
    key_.reset();
  if (!isIdentifier(ns_))
    throw OpalError("invalid namespace '" + ns_ + "' for " + toString(kind_) +
                    ": a namespace is an identifier");
  if (kind_ != IMPL) {
    if (ns_ == "_")
      throw OpalError(std::string(toString(kind_)) +
                      " cannot use namespace _: it is reserved for backend "
                      "fallbacks (OPAL_LIBRARY_IMPL(_, Key, m))");
    if (key_)
      throw OpalError(std::string(toString(kind_)) +
                      " cannot take a dispatch key (got " + toString(*key_) +
                      "); use OPAL_LIBRARY_IMPL for the kernels of one key");
  }
  if (kind_ == DEF)
    keep(Dispatcher::singleton().registerLibrary(ns_, debug_));
}

Library::~Library() {
  while (!handles_.empty())
    handles_.pop_back();
}

void Library::keep(Expected<RegistrationHandleRAII> handle) {
  if (!handle)
    throw OpalError(handle.error().message());
  handles_.push_back(std::move(*handle));
}

Library &Library::def(std::string_view schema) {
  return def(schema, AliasAnalysisKind::FROM_SCHEMA);
}

static FunctionSchema parseOrThrow(std::string_view text) {
  ParseResult<FunctionSchema> schema = parseSchema(text);
  if (!schema)
    throw OpalError(schema.error().message());
  return std::move(*schema);
}

/// Puts `schema` in namespace `ns`; throws if it names another one.
static FunctionSchema inNamespace(FunctionSchema schema, const std::string &ns,
                                  Library::Kind kind) {
  std::string_view given = schema.ns();
  if (!given.empty() && given != ns)
    throw OpalError("Explicitly provided namespace (" + std::string(given) +
                    ") in schema string does not match namespace of enclosing " +
                    toString(kind) + " block (" + ns + ").");
  if (given.empty())
    schema = schema.withName(
        {ns + "::" + std::string(schema.baseName()), schema.overloadName()});
  return schema;
}

Library &Library::def(std::string_view text, AliasAnalysisKind kind) {
  if (kind_ == IMPL)
    throw OpalError("Cannot define an operator inside of a OPAL_LIBRARY_IMPL "
                    "block.  All def()s should be placed in the (unique) "
                    "OPAL_LIBRARY block for their namespace.");
  FunctionSchema schema = inNamespace(parseOrThrow(text), ns_, kind_);
  if (schema.name().empty())
    throw OpalError("def() needs an operator name in the schema: " + std::string(text));
  bool isDefault = kind == AliasAnalysisKind::FROM_SCHEMA;
  keep(Dispatcher::singleton().registerDef(std::move(schema), debug_, kind, isDefault));
  return *this;
}

Library &Library::def(std::string_view nameOrSchema, CppFunction f) {
  if (kind_ == IMPL)
    return def(nameOrSchema); // raises the IMPL error
  auto parsed = parseSchemaOrName(nameOrSchema);
  if (!parsed)
    throw OpalError(parsed.error().message());
  FunctionSchema schema = [&] {
    if (auto *full = std::get_if<FunctionSchema>(&*parsed))
      return *full;
    // A bare name: the schema comes from the kernel's C++ signature.
    if (!f.inferredSchema())
      throw OpalError("def(\"" + std::string(nameOrSchema) +
                      "\", ...): a bare operator name needs a C++ kernel to "
                      "infer the schema from; give the full schema");
    return f.inferredSchema()->withName(std::get<OperatorName>(*parsed));
  }();
  bool inferred = std::holds_alternative<OperatorName>(*parsed);
  schema = inNamespace(std::move(schema), ns_, kind_);
  OperatorName name = schema.operatorName();
  keep(Dispatcher::singleton().registerDef(
      std::move(schema), debug_,
      inferred ? AliasAnalysisKind::CONSERVATIVE : AliasAnalysisKind::FROM_SCHEMA,
      !inferred));
  keep(Dispatcher::singleton().registerImpl(
      std::move(name), DispatchKey::CompositeImplicitAutograd, std::move(f.kernel_),
      std::move(f.inferredSchema_), std::move(f.cppSignature_), debug_));
  return *this;
}

OperatorName Library::qualify(std::string_view text, const char *what) const {
  ParseResult<OperatorName> name = parseOperatorName(text);
  if (!name)
    throw OpalError(name.error().message());
  std::string_view given = name->ns();
  if (!given.empty() && given != ns_)
    throw OpalError(std::string(what) + "(\"" + std::string(text) +
                    "\", ...): Explicitly provided namespace (" + std::string(given) +
                    ") in operator name does not match namespace of enclosing " +
                    toString(kind_) + " block (" + ns_ + ").");
  if (given.empty())
    name->name = ns_ + "::" + name->name;
  return *name;
}

Library &Library::impl(std::string_view name, CppFunction f) {
  OperatorName opName = qualify(name, "impl");
  keep(Dispatcher::singleton().registerImpl(
      std::move(opName), key_, std::move(f.kernel_), std::move(f.inferredSchema_),
      std::move(f.cppSignature_), debug_));
  return *this;
}

Library &Library::impl(std::string_view name, DispatchKey key, CppFunction f) {
  if (key_ && key != *key_ && key != DispatchKey::Undefined)
    throw OpalError(std::string("Explicitly provided dispatch key (") + toString(key) +
                    ") is inconsistent with the dispatch key of the enclosing " +
                    toString(kind_) + " block (" + toString(*key_) +
                    ").  Please declare a separate " + toString(kind_) +
                    " block for this dispatch key and move your impl() there.");
  OperatorName opName = qualify(name, "impl");
  std::optional<DispatchKey> target = key == DispatchKey::Undefined ? key_ : key;
  keep(Dispatcher::singleton().registerImpl(
      std::move(opName), target, std::move(f.kernel_), std::move(f.inferredSchema_),
      std::move(f.cppSignature_), debug_));
  return *this;
}

Library &Library::fallback(CppFunction f) {
  if (kind_ != IMPL)
    throw OpalError(std::string("Cannot register a fallback in a ") + toString(kind_) +
                    " block; use OPAL_LIBRARY_IMPL(_, Key, m) { m.fallback(...); }");
  if (ns_ != "_")
    throw OpalError("Fallback functions which apply to only a single namespace "
                    "(you specified " + ns_ + ") are not supported.  If you "
                    "intended to apply this fallback function globally, please "
                    "define a separate block:\n\n    OPAL_LIBRARY_IMPL(_, " +
                    (key_ ? toString(*key_) : "Key") +
                    ", m) { m.fallback(...); }");
  if (!key_)
    throw OpalError("fallback() needs the dispatch key of its OPAL_LIBRARY_IMPL "
                    "block: OPAL_LIBRARY_IMPL(_, Key, m)");
  keep(Dispatcher::singleton().registerFallback(*key_, std::move(f.kernel_), debug_));
  return *this;
}

//===----------------------------------------------------------------------===//
// Static libraries
//===----------------------------------------------------------------------===//

namespace {
std::mutex &collectorMutex() {
  static std::mutex mutex;
  return mutex;
}
std::optional<std::vector<std::string>> &collector() {
  static std::optional<std::vector<std::string>> errors;
  return errors;
}
} // namespace

void detail::beginCollectingStaticRegistrationErrors() {
  std::lock_guard<std::mutex> lock(collectorMutex());
  collector().emplace();
}

std::vector<std::string> detail::endCollectingStaticRegistrationErrors() {
  std::lock_guard<std::mutex> lock(collectorMutex());
  std::vector<std::string> errors = std::move(collector().value_or(
      std::vector<std::string>()));
  collector().reset();
  return errors;
}

bool detail::collectStaticRegistrationError(const std::string &message) {
  std::lock_guard<std::mutex> lock(collectorMutex());
  if (!collector())
    return false;
  collector()->push_back(message);
  return true;
}

detail::StaticLibrary::StaticLibrary(Library::Kind kind, const char *ns,
                                     std::optional<DispatchKey> key,
                                     void (*init)(Library &), const char *file,
                                     uint32_t line) {
  try {
    library_.emplace(kind, ns, key, file, line);
    init(*library_);
  } catch (const std::exception &error) {
    library_.reset(); // nothing of a failed static library stays registered
    if (collectStaticRegistrationError(error.what()))
      return;
    std::cerr << "opal: static registration of " << toString(kind) << "(" << ns
              << ") at " << file << ":" << line << " failed:\n"
              << error.what() << std::endl;
    std::abort();
  }
}
