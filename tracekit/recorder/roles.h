// What an instruction is for: computing an address, running a loop, or the
// kernel's own work.  Decided once per static instruction when a kernel starts,
// from the module's def-use chains and loop structure, and written to the trace
// as the sites table's ``role`` column (docs/trace-format.md).
//
// A GPU compiler keeps the kernel's arithmetic but folds most of the rest: an
// index that only feeds an address becomes an immediate offset or one pointer
// increment per unrolled loop body, and the counter, compare and branches of a
// loop run once per unrolled body instead of once per iteration.  The IR runs
// all of them every time, so the models price them apart (docs/model.md,
// "Instruction roles").
//
//   address  every use of the value ends in the address operand of a memory
//            access (a load, store or atomic, or the offset/pointer of a
//            vload/vstore/atomic builtin), directly or through other address
//            values (getelementptr, casts, integer arithmetic, selects, phis);
//   indirect an address value computed from a loaded value (x[col[j]], a
//            pointer chase p = next[p]): a compiler cannot turn it into a
//            pointer increment, so it keeps most of its instructions;
//   loop     the branches that leave a loop or go back to its header, and the
//            values whose every use is such a branch's condition, an address
//            value or another loop value (the induction variable's increment
//            and the exit compare); not those of a loop that waits at a barrier
//            with a trip count known only at run time, which compilers keep rolled;
//   batched  a global load (or vload) inside a loop whose iterations a compiler may
//            overlap: nothing in the loop writes global memory, runs an atomic or
//            waits at a barrier, and the load's address does not come round the
//            loop from a loaded value (a pointer chase).  Unrolled, the loads of
//            several iterations are issued before the first is used;
//   (none)   everything else, including values used both for an address and
//            for the kernel's result.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include "opclass.h"

namespace tracekit
{

enum class Role : uint8_t
{
  None = 0,
  Address = 1,
  Loop = 2,
  Indirect = 3,
  Batched = 4,
};

inline const char* roleName(Role r)
{
  return r == Role::Address ? "address" : r == Role::Loop ? "loop" : r == Role::Indirect ? "indirect"
         : r == Role::Batched ? "batched" : "";
}

// Builtin name of a call to a declared function ("" for anything else).
inline std::string calleeBuiltin(const llvm::CallInst* call)
{
  const llvm::Function* f = call->getCalledFunction();
  if (!f || !f->isDeclaration())
    return "";
  return builtinName(f->getName().str());
}

// Is ``name`` a work-group barrier builtin?
inline bool isBarrier(const std::string& name)
{
  return startsWith(name, "barrier") || startsWith(name, "work_group_barrier");
}

// Does ``v`` produce a value read from memory: a load, an atomic, or a vload/atomic builtin?
inline bool isLoadedValue(const llvm::Value* v)
{
  if (llvm::isa<llvm::LoadInst>(v) || llvm::isa<llvm::AtomicRMWInst>(v) || llvm::isa<llvm::AtomicCmpXchgInst>(v))
    return true;
  const auto* call = llvm::dyn_cast<llvm::CallInst>(v);
  if (!call)
    return false;
  std::string name = calleeBuiltin(call);
  return startsWith(name, "vload") || startsWith(name, "atomic_") || startsWith(name, "atom_");
}

// Is ``u`` the address operand of a memory access?
inline bool isAddressUse(const llvm::Use& u)
{
  const llvm::User* user = u.getUser();
  unsigned n = u.getOperandNo();
  if (const auto* ld = llvm::dyn_cast<llvm::LoadInst>(user))
    return n == ld->getPointerOperandIndex();
  if (const auto* st = llvm::dyn_cast<llvm::StoreInst>(user))
    return n == st->getPointerOperandIndex();
  if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(user))
    return n == rmw->getPointerOperandIndex();
  if (const auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(user))
    return n == cx->getPointerOperandIndex();
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(user))
  {
    if (n >= call->arg_size())
      return false;
    std::string name = calleeBuiltin(call);
    if (startsWith(name, "vload"))
      return true;  // vloadN(offset, pointer)
    if (startsWith(name, "vstore"))
      return n >= 1;  // vstoreN(data, offset, pointer)
    if (startsWith(name, "atomic_") || startsWith(name, "atom_"))
      return call->getArgOperand(n)->getType()->isPointerTy();
  }
  return false;
}

// Can the value of ``inst`` be address or loop arithmetic?  Computations that
// produce a value and touch no memory: integer and pointer arithmetic, casts,
// compares, selects, phis and the work-item builtins (get_global_id, ...).
inline bool isCandidate(const llvm::Instruction* inst)
{
  const llvm::Type* type = inst->getType();
  if (type->isFloatingPointTy() || type->isVectorTy())
    return false;
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(inst))
  {
    std::string name = calleeBuiltin(call);
    return startsWith(name, "get_") || startsWith(name, "as_") || name == "mul24" || name == "mad24" ||
           name == "mul_hi" || name == "mad_hi" || name == "min" || name == "max" ||
           startsWith(name, "llvm.smin") || startsWith(name, "llvm.smax") ||
           startsWith(name, "llvm.umin") || startsWith(name, "llvm.umax");
  }
  return !type->isVoidTy() && !inst->isTerminator() && !inst->mayReadOrWriteMemory() &&
         !llvm::isa<llvm::AllocaInst>(inst);
}

// Largest set S of candidates (``member``) with at least one use each, every use
// of which is accepted by ``ok`` or is an instruction of S.
template <class Ok>
void greatestSet(std::unordered_set<const llvm::Instruction*>& member, Ok ok)
{
  bool changed = true;
  while (changed)
  {
    changed = false;
    for (auto it = member.begin(); it != member.end();)
    {
      const llvm::Instruction* v = *it;
      bool keep = !v->use_empty();
      for (const llvm::Use& u : v->uses())
      {
        const auto* user = llvm::dyn_cast<llvm::Instruction>(u.getUser());
        if (ok(u) || (user && member.count(user)))
          continue;
        keep = false;
        break;
      }
      if (keep)
        ++it;
      else
      {
        it = member.erase(it);
        changed = true;
      }
    }
  }
}

// Dominators and loops of one function.
struct FunctionLoops
{
  llvm::DominatorTree dt;
  llvm::LoopInfo li;
  explicit FunctionLoops(llvm::Function& f) : dt(f), li(dt) {}
};

// Is ``v`` a constant, or a header phi of ``loop`` that starts at one, perhaps through a cast
// or an operation with a constant?
inline bool constantStart(const llvm::Value* v, const llvm::Loop* loop)
{
  if (llvm::isa<llvm::ConstantInt>(v))
    return true;
  if (const auto* cast = llvm::dyn_cast<llvm::CastInst>(v))
    return constantStart(cast->getOperand(0), loop);
  if (const auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(v))
    return (llvm::isa<llvm::ConstantInt>(bin->getOperand(1)) && constantStart(bin->getOperand(0), loop)) ||
           (llvm::isa<llvm::ConstantInt>(bin->getOperand(0)) && constantStart(bin->getOperand(1), loop));
  const auto* phi = llvm::dyn_cast<llvm::PHINode>(v);
  if (!phi || phi->getParent() != loop->getHeader())
    return false;
  for (unsigned k = 0; k < phi->getNumIncomingValues(); k++)
    if (!loop->contains(phi->getIncomingBlock(k)) && !llvm::isa<llvm::ConstantInt>(phi->getIncomingValue(k)))
      return false;
  return true;
}

// Does the loop wait at a barrier while its trip count is known only at run time?  A compiler
// does not unroll such a loop (nvcc keeps the tree reduction's and the tiled product's loops
// rolled, one barrier per body in the machine code), so its counter, compare and branches
// run every iteration: they are the kernel's work, not loop control an unrolling folds.
inline bool keptRolled(const llvm::Loop* loop)
{
  bool barrier = false;
  for (const llvm::BasicBlock* bb : loop->blocks())
    for (const llvm::Instruction& i : *bb)
      if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
        barrier = barrier || isBarrier(calleeBuiltin(call));
  if (!barrier)
    return false;
  llvm::SmallVector<llvm::BasicBlock*, 4> exiting;
  loop->getExitingBlocks(exiting);
  for (const llvm::BasicBlock* bb : exiting)
  {
    const auto* br = llvm::dyn_cast<llvm::BranchInst>(bb->getTerminator());
    const auto* cmp = br && br->isConditional() ? llvm::dyn_cast<llvm::ICmpInst>(br->getCondition()) : nullptr;
    if (!cmp || !constantStart(cmp->getOperand(0), loop) || !constantStart(cmp->getOperand(1), loop))
      return true;
  }
  return false;
}

// Branches (and switches) that leave their loop or go back to its header, of loops a compiler
// may unroll (not :func:`keptRolled`).
inline void loopBranches(const llvm::Function& f, const llvm::LoopInfo& li,
                         std::unordered_set<const llvm::Instruction*>& out)
{
  std::unordered_map<const llvm::Loop*, bool> rolled;  // keptRolled, once per loop
  for (const llvm::BasicBlock& bb : f)
  {
    const llvm::Loop* loop = li.getLoopFor(&bb);
    const llvm::Instruction* term = bb.getTerminator();
    if (!loop || !term || !(llvm::isa<llvm::BranchInst>(term) || llvm::isa<llvm::SwitchInst>(term)))
      continue;
    auto known = rolled.find(loop);
    if (known == rolled.end())
      known = rolled.emplace(loop, keptRolled(loop)).first;
    if (known->second)
      continue;
    for (unsigned i = 0; i < term->getNumSuccessors(); i++)
    {
      const llvm::BasicBlock* succ = term->getSuccessor(i);
      if (succ == loop->getHeader() || !loop->contains(succ))
      {
        out.insert(term);
        break;
      }
    }
  }
}

// Does ``v`` bring a loaded value into address arithmetic: a load or atomic, an
// address value with such an operand, or a phi whose value coming round its loop
// (along a back edge) is one.  A loop-invariant load that only starts a counter
// (SpMV's row start) does not make the counter's addresses indirect.
inline bool carriesLoad(const llvm::Value* v, const std::unordered_set<const llvm::Instruction*>& address,
                        const llvm::DominatorTree& dt, std::unordered_set<const llvm::Value*>& seen)
{
  if (!seen.insert(v).second)
    return false;
  if (isLoadedValue(v))
    return true;
  if (llvm::isa<llvm::CallInst>(v))
    return false;
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v))
  {
    for (unsigned i = 0; i < phi->getNumIncomingValues(); i++)
      if (dt.dominates(phi->getParent(), phi->getIncomingBlock(i)) &&
          carriesLoad(phi->getIncomingValue(i), address, dt, seen))
        return true;
    return false;
  }
  const auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
  if (!inst || !address.count(inst))
    return false;
  for (const llvm::Use& op : inst->operands())
    if (carriesLoad(op.get(), address, dt, seen))
      return true;
  return false;
}

// Does ``inst`` keep the next loop iteration's global loads behind it: a write to
// global (or generic) memory, an atomic, a fence, or a barrier or other builtin that
// writes memory (vstore, write_image, async copies)?  Stores to private and local
// memory do not: a global load cannot alias them.
inline bool ordersGlobalLoads(const llvm::Instruction& i)
{
  auto globalish = [](const llvm::Value* ptr) {
    unsigned as = ptr->getType()->getPointerAddressSpace();
    return as != 0 && as != 3;
  };
  if (const auto* st = llvm::dyn_cast<llvm::StoreInst>(&i))
    return globalish(st->getPointerOperand());
  if (llvm::isa<llvm::AtomicRMWInst>(i) || llvm::isa<llvm::AtomicCmpXchgInst>(i) || llvm::isa<llvm::FenceInst>(i))
    return true;
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
  {
    std::string name = calleeBuiltin(call);
    if (name.empty())
      return !call->getCalledFunction() || !call->getCalledFunction()->isIntrinsic();  // user function
    return isBarrier(name) || startsWith(name, "mem_fence") ||
           startsWith(name, "write_mem_fence") || startsWith(name, "atomic_") || startsWith(name, "atom_") ||
           startsWith(name, "vstore") || startsWith(name, "write_image") || startsWith(name, "async_work_group") ||
           startsWith(name, "wait_group_events");
  }
  return false;
}

// Does ``v`` depend on a value loaded in an earlier iteration of ``loop``: through a phi of
// the loop's header whose value along a back edge comes from a load in the loop?
inline bool chasedRound(const llvm::Value* v, const llvm::Loop* loop, bool back,
                        std::unordered_set<const llvm::Value*>& seen)
{
  const auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
  if (!inst || !loop->contains(inst) || !seen.insert(v).second)
    return false;
  if (back && isLoadedValue(inst))
    return true;
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(inst))
  {
    for (unsigned k = 0; k < phi->getNumIncomingValues(); k++)
    {
      bool edge = phi->getParent() == loop->getHeader() && loop->contains(phi->getIncomingBlock(k));
      if (chasedRound(phi->getIncomingValue(k), loop, back || edge, seen))
        return true;
    }
    return false;
  }
  if (inst->mayReadOrWriteMemory())
    return false;  // a load of this iteration: a gather, not a chase
  for (const llvm::Use& op : inst->operands())
    if (chasedRound(op.get(), loop, back, seen))
      return true;
  return false;
}

// Global loads whose loop lets a compiler overlap iterations (Role::Batched).
inline void batchedLoads(const llvm::Function& f, const llvm::LoopInfo& li,
                         std::unordered_map<const llvm::Instruction*, Role>& roles)
{
  std::unordered_map<const llvm::Loop*, bool> ordered;
  auto isOrdered = [&](const llvm::Loop* loop) {
    auto it = ordered.find(loop);
    if (it != ordered.end())
      return it->second;
    bool o = false;
    for (const llvm::BasicBlock* bb : loop->blocks())
      for (const llvm::Instruction& i : *bb)
        o = o || ordersGlobalLoads(i);
    return ordered[loop] = o;
  };
  for (const llvm::BasicBlock& bb : f)
  {
    const llvm::Loop* loop = li.getLoopFor(&bb);
    if (!loop || isOrdered(loop))
      continue;
    for (const llvm::Instruction& i : bb)
    {
      const llvm::Value* ptr = nullptr;
      if (const auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i))
        ptr = ld->getPointerOperand();
      else if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
        if (startsWith(calleeBuiltin(call), "vload") && call->arg_size() >= 2)
          ptr = call->getArgOperand(1);
      if (!ptr || !ptr->getType()->isPointerTy() || ptr->getType()->getPointerAddressSpace() != 1)
        continue;
      std::unordered_set<const llvm::Value*> seen;
      bool chased = false;
      for (const llvm::Use& op : i.operands())
        chased = chased || chasedRound(op.get(), loop, false, seen);
      if (!chased)
        roles[&i] = Role::Batched;
    }
  }
}

// Role of every instruction of ``module``, keyed by instruction.
inline std::unordered_map<const llvm::Instruction*, Role> instructionRoles(const llvm::Module* module)
{
  std::unordered_map<const llvm::Instruction*, Role> roles;
  std::unordered_set<const llvm::Instruction*> branches;
  std::unordered_set<const llvm::Instruction*> address;
  std::unordered_map<const llvm::Function*, std::unique_ptr<FunctionLoops>> loops;
  for (const llvm::Function& cf : *module)
  {
    if (cf.isDeclaration())
      continue;
    auto& fl = loops[&cf] = std::make_unique<FunctionLoops>(const_cast<llvm::Function&>(cf));
    loopBranches(cf, fl->li, branches);
    for (const llvm::BasicBlock& bb : cf)
      for (const llvm::Instruction& i : bb)
        if (isCandidate(&i))
          address.insert(&i);
  }
  std::unordered_set<const llvm::Instruction*> loop = address;
  greatestSet(address, [](const llvm::Use& u) { return isAddressUse(u); });
  for (const llvm::Instruction* i : address)
    loop.erase(i);
  greatestSet(loop, [&](const llvm::Use& u) {
    const auto* user = llvm::dyn_cast<llvm::Instruction>(u.getUser());
    return isAddressUse(u) || (user && (address.count(user) || branches.count(user)));
  });
  for (const llvm::Instruction* i : address)
  {
    std::unordered_set<const llvm::Value*> seen{i};
    bool indirect = false;
    for (const llvm::Use& op : i->operands())
      if (carriesLoad(op.get(), address, loops[i->getFunction()]->dt, seen))
      {
        indirect = true;
        break;
      }
    roles[i] = indirect ? Role::Indirect : Role::Address;
  }
  for (const llvm::Instruction* i : loop)
    roles[i] = Role::Loop;
  for (const llvm::Instruction* i : branches)
    roles[i] = Role::Loop;
  for (const auto& fl : loops)
    batchedLoads(*fl.first, fl.second->li, roles);
  return roles;
}

} // namespace tracekit
