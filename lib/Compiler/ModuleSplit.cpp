//===- ModuleSplit.cpp - A kernel's LLVM module split across threads ------===//

#include "opal/Compiler/ModuleSplit.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <map>
#include <set>

using namespace opal::ir;

namespace {

/// A function that is split off: kept out of line and optimized (the
/// nests; OpenMP's outlined regions are optimizenone and stay).
bool movable(const llvm::Function &function) {
  return !function.isDeclaration() && function.hasFnAttribute(llvm::Attribute::NoInline) &&
         !function.hasFnAttribute(llvm::Attribute::OptimizeNone);
}

size_t sizeOf(const llvm::Function &function) {
  size_t count = 0;
  for (const llvm::BasicBlock &block : function)
    count += block.size();
  return count;
}

/// The functions that use `value`, through constant expressions too.
void usersOf(const llvm::Value *value, std::set<const llvm::Function *> &functions) {
  for (const llvm::User *user : value->users()) {
    if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(user))
      functions.insert(instruction->getFunction());
    else if (llvm::isa<llvm::Constant>(user))
      usersOf(user, functions);
  }
}

/// Removes what nothing reaches from a split module (the copies of the
/// entry points' helpers a part does not call).
void removeDead(llvm::Module &module) {
  llvm::ModuleAnalysisManager analyses;
  llvm::PassBuilder().registerModuleAnalyses(analyses);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::GlobalDCEPass());
  passes.run(module, analyses);
}

} // namespace

std::vector<std::string> opal::ir::splitModule(llvm::Module &module, unsigned count) {
  std::vector<std::pair<size_t, llvm::Function *>> moved;
  size_t rest = 0, movedSize = 0;
  // Functions that touch writable global data stay: that data has one
  // definition, and a reference from another object may be out of reach.
  std::set<const llvm::Function *> pinned;
  for (const llvm::GlobalVariable &global : module.globals())
    if (!global.isConstant() || !global.hasLocalLinkage())
      usersOf(&global, pinned);
  for (llvm::Function &function : module) {
    size_t size = sizeOf(function);
    if (movable(function) && !pinned.count(&function)) {
      moved.push_back({size, &function});
      movedSize += size;
    } else {
      rest += size;
    }
  }
  if (count < 2 || moved.size() < 2 || movedSize < kSplitInstructions)
    return {};
  // Largest first, each to the lightest module (the first holds the rest).
  std::sort(moved.begin(), moved.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second->getName() < b.second->getName();
  });
  std::vector<size_t> load(count, 0);
  load[0] = rest;
  std::map<const llvm::Function *, unsigned> home;
  for (auto &[size, function] : moved) {
    unsigned lightest =
        static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
    home[function] = lightest;
    load[lightest] += size;
  }
  // Every moved function is a global symbol of its module, bound by name
  // when the group loads; hidden, as nothing outside the kernel calls it.
  for (auto &[size, function] : moved) {
    function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  std::vector<std::string> others;
  for (unsigned part = 1; part < count; ++part) {
    if (std::none_of(home.begin(), home.end(), [&](auto &entry) { return entry.second == part; }))
      continue;
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> split =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          if (auto *function = llvm::dyn_cast<llvm::Function>(value)) {
            auto found = home.find(function);
            if (found != home.end())
              return found->second == part;
            // A helper of the entry points: a copy where it is called.
            return function->hasLocalLinkage();
          }
          if (auto *global = llvm::dyn_cast<llvm::GlobalVariable>(value))
            return global->isConstant() && global->hasLocalLinkage();
          return false;
        });
    removeDead(*split);
    std::string bitcode;
    llvm::raw_string_ostream stream(bitcode);
    llvm::WriteBitcodeToFile(*split, stream);
    stream.flush();
    others.push_back(std::move(bitcode));
  }
  // What moved leaves the first module as a declaration.
  for (auto &[function, part] : home)
    if (part != 0)
      const_cast<llvm::Function *>(function)->deleteBody();
  removeDead(module);
  return others;
}
