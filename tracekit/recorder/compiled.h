// What an optimizing compile keeps of each source line: the compiled view.
//
// Oclgrind interprets the module as its front end left it.  A GPU vendor's
// compiler runs a full optimizing pipeline first: it unrolls loops of known trip
// count, after which a remainder by the loop counter's power of two is a mask,
// drops stores of undefined values, folds what is computed twice.  A finding that
// rests on an instruction the compiler removes would advise on code that never
// runs.  So when a kernel starts, the recorder optimizes a copy of the module with
// LLVM's O3 pipeline (the original, which Oclgrind is running, is not touched) and
// counts the copy's instructions by (source file, line, class), over the kernel and
// the functions it still calls.  Each site is then written with the count of its
// own class on its own line (the sites table's ``compiled`` column,
// docs/trace-format.md): zero means the optimizing compile left no such
// instruction there.
//
// Lines, not columns: instructions that the optimizer merges or hoists keep their
// line more often than their column.  Classes come from opclass.h, so a remainder
// by a constant power of two counts as ``bitwise`` here as it does in the trace.

#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include "opclass.h"

namespace tracekit
{

using CompiledKey = std::tuple<std::string, unsigned, std::string>;  // file, line, opclass
using CompiledView = std::map<CompiledKey, unsigned>;

// Oclgrind runs the 24-bit integer builtins natively, so the module only declares
// them and the optimizer cannot see through a call: ``x % mad24(1, 2, 17)`` would stay
// a division by an unknown.  A vendor compiler expands them inline.  Their results
// equal a plain multiply (and add) wherever the operands fit 24 bits, which is their
// contract, so the copy gets that arithmetic in their place.
inline void expandIntegerBuiltins(llvm::Module& module)
{
  std::vector<llvm::CallInst*> calls;
  for (llvm::Function& fn : module)
    for (llvm::BasicBlock& bb : fn)
      for (llvm::Instruction& inst : bb)
      {
        auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
        const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
        if (!callee || !callee->isDeclaration() || !call->getType()->isIntOrIntVectorTy())
          continue;
        std::string name = builtinName(callee->getName().str());
        if ((name == "mad24" && call->arg_size() == 3) || (name == "mul24" && call->arg_size() == 2))
          calls.push_back(call);
      }
  for (llvm::CallInst* call : calls)
  {
    llvm::IRBuilder<> b(call);
    b.SetCurrentDebugLocation(call->getDebugLoc());
    llvm::Value* v = b.CreateMul(call->getArgOperand(0), call->getArgOperand(1));
    if (call->arg_size() == 3)
      v = b.CreateAdd(v, call->getArgOperand(2));
    call->replaceAllUsesWith(v);
    call->eraseFromParent();
  }
}

inline void optimizeO3(llvm::Module& module)
{
  // the analysis managers are declared in this order so that they are destroyed
  // in the reverse one, as LLVM's new pass manager requires
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

// Instructions by (file, line, class) of ``kernel`` and the functions it calls, in
// an O3-optimized copy of ``module``.  Empty when the kernel is not found.
inline CompiledView compiledView(const llvm::Module* module, const std::string& kernel)
{
  CompiledView view;
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module);
  // Oclgrind's front end builds for size, which keeps loops rolled; GPU compilers
  // optimize for speed
  for (llvm::Function& fn : *copy)
  {
    fn.removeFnAttr(llvm::Attribute::OptimizeNone);
    fn.removeFnAttr(llvm::Attribute::MinSize);
    fn.removeFnAttr(llvm::Attribute::OptimizeForSize);
  }
  expandIntegerBuiltins(*copy);
  optimizeO3(*copy);
  llvm::Function* root = copy->getFunction(kernel);
  if (!root)
    return view;
  std::vector<llvm::Function*> todo{root};
  std::set<llvm::Function*> seen{root};
  while (!todo.empty())
  {
    llvm::Function* fn = todo.back();
    todo.pop_back();
    for (const llvm::BasicBlock& bb : *fn)
      for (const llvm::Instruction& inst : bb)
      {
        if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        {
          llvm::Function* callee = call->getCalledFunction();
          if (callee && !callee->isDeclaration() && seen.insert(callee).second)
            todo.push_back(callee);
        }
        unsigned lanes = 1;
        std::string cls = classify(&inst, lanes);
        const llvm::DILocation* loc = inst.getDebugLoc().get();
        if (cls.empty() || !loc || !loc->getLine())
          continue;
        view[{loc->getFilename().str(), loc->getLine(), cls}] += 1;
      }
  }
  return view;
}

} // namespace tracekit
