// Instruction classes for the tracekit recorder plugin.
//
// Maps one LLVM instruction (as Oclgrind executes it) to the trace v1 opclass
// vocabulary of tracekit/schema.py.  The mapping is decided once per static
// instruction when a kernel starts, so the per-instruction hot path is a table
// lookup.  docs/recording.md lists the mapping in prose.
#pragma once

#include <string>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/DerivedTypes.h"

namespace tracekit
{

// Name of an OpenCL builtin from its Itanium-mangled symbol (_Z3sinf -> sin).
inline std::string builtinName(const std::string& symbol)
{
  if (symbol.size() < 3 || symbol[0] != '_' || symbol[1] != 'Z')
    return symbol;
  size_t i = 2, len = 0;
  while (i < symbol.size() && isdigit((unsigned char)symbol[i]))
    len = len * 10 + (symbol[i++] - '0');
  if (len == 0 || i + len > symbol.size())
    return symbol;
  return symbol.substr(i, len);
}

// Number of lanes an instruction's type carries (float4 -> 4).
inline unsigned lanesOf(const llvm::Type* type)
{
  if (type && type->isVectorTy())
    return (unsigned)llvm::cast<llvm::FixedVectorType>(type)->getNumElements();
  return 1;
}

inline std::string fpPrefix(const llvm::Type* type)
{
  const llvm::Type* s = type->getScalarType();
  if (s->isHalfTy())
    return "fp16";
  if (s->isDoubleTy())
    return "fp64";
  return "fp32";
}

// The conformant fma() builtin: its own class for single precision, because
// some targets emulate the correctly rounded operation in software (the Adreno
// guide's Table 8-1); targets that do not price math_fma run it as fp32_fma.
// Half and double keep their precision's fma class.
inline std::string fmaClass(const llvm::Type* type)
{
  std::string prefix = fpPrefix(type);
  return prefix == "fp32" ? std::string("math_fma") : prefix + "_fma";
}

inline bool is64(const llvm::Type* type)
{
  const llvm::Type* s = type->getScalarType();
  return s->isIntegerTy() && s->getIntegerBitWidth() == 64;
}

inline bool startsWith(const std::string& s, const char* prefix)
{
  return s.rfind(prefix, 0) == 0;
}

// Lower-case letters, digits and '_' only, starting with a letter.
inline std::string sanitize(const std::string& name)
{
  std::string out;
  for (char c : name)
  {
    char l = (char)tolower((unsigned char)c);
    out += (isalnum((unsigned char)l) ? l : '_');
  }
  while (!out.empty() && !isalpha((unsigned char)out[0]))
    out.erase(0, 1);
  return out.empty() ? std::string("other") : out;
}

// Class of a call: OpenCL builtins by name, LLVM intrinsics, user functions.
inline std::string classifyCall(const llvm::CallInst* call, unsigned& lanes)
{
  const llvm::Function* callee = call->getCalledFunction();
  lanes = lanesOf(call->getType());
  if (!callee)
    return "branch";
  std::string symbol = callee->getName().str();
  if (!callee->isDeclaration())
    return "branch";  // call into a user function: control flow only
  if (startsWith(symbol, "llvm."))
  {
    std::string base = symbol.substr(5);
    base = base.substr(0, base.find('.'));
    if (base == "fmuladd")  // a*b+c the compiler may contract
      return fpPrefix(call->getType()) + "_fma";
    if (base == "fma")
      return fmaClass(call->getType());
    if (base == "memcpy" || base == "memset" || base == "memmove" || base == "lifetime" ||
        base == "dbg" || base == "assume")
      return "other";
    if (base == "smin" || base == "smax" || base == "umin" || base == "umax")
      return "compare";
    return "math_" + sanitize(base);
  }
  std::string name = builtinName(symbol);
  if (name == "barrier" || name == "work_group_barrier" || name == "mem_fence" ||
      name == "read_mem_fence" || name == "write_mem_fence" || name == "sub_group_barrier" ||
      name == "atomic_work_item_fence")
    return "barrier";
  if (startsWith(name, "get_"))
    return "other";  // work-item functions: ids and sizes
  if (startsWith(name, "atomic_") || startsWith(name, "atom_"))
    return "atomic";
  if (name == "mad")  // precision left to the implementation: the hardware multiply-add
    return fpPrefix(call->getType()) + "_fma";
  if (name == "fma")
    return fmaClass(call->getType());
  if (name == "mad24" || name == "mul24" || name == "mul_hi" || name == "mad_hi")
    return "int_mul";
  if (startsWith(name, "vload") || startsWith(name, "read_image"))
    return "load";
  if (startsWith(name, "vstore") || startsWith(name, "write_image"))
  {
    lanes = call->arg_size() ? lanesOf(call->getArgOperand(0)->getType()) : 1;
    return "store";
  }
  if (startsWith(name, "convert_"))
    return "convert";
  if (startsWith(name, "as_") || startsWith(name, "async_work_group") ||
      name == "wait_group_events" || name == "prefetch" || name == "printf")
    return "other";
  return "math_" + sanitize(name);
}

// Opclass of one instruction; ``lanes`` is set to the number of vector lanes
// (each execution counts once per lane).  Empty for instructions that are not
// counted at all (phi nodes).
inline std::string classify(const llvm::Instruction* inst, unsigned& lanes)
{
  using llvm::Instruction;
  lanes = lanesOf(inst->getType());
  const llvm::Type* type = inst->getType();
  switch (inst->getOpcode())
  {
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FNeg:
    return fpPrefix(type) + "_add";
  case Instruction::FMul:
    return fpPrefix(type) + "_mul";
  case Instruction::FDiv:
  case Instruction::FRem:
    return fpPrefix(type) + "_div";
  case Instruction::Add:
  case Instruction::Sub:
    return is64(type) ? "int64_add" : "int_add";
  case Instruction::Mul:
    return is64(type) ? "int64_mul" : "int_mul";
  case Instruction::SDiv:
  case Instruction::UDiv:
  case Instruction::SRem:
  case Instruction::URem:
  {
    // A divisor known at compile time is strength-reduced by GPU compilers: a
    // power of two becomes a shift or mask, any other constant a multiply-high
    // and shifts.  Only a divisor known at run time pays for a division.
    const llvm::Value* divisor = inst->getOperand(1);
    if (const auto* k = llvm::dyn_cast<llvm::Constant>(divisor))
      if (divisor->getType()->isVectorTy() && k->getSplatValue())
        divisor = k->getSplatValue();  // the same constant in every vector lane
    if (const auto* c = llvm::dyn_cast<llvm::ConstantInt>(divisor))
    {
      if (!c->isZero())
      {
        const llvm::APInt& v = c->getValue();
        if (v.isPowerOf2() || (v.isNegatedPowerOf2() && !v.isMinSignedValue()))
          return "bitwise";
        return is64(type) ? "int64_mul" : "int_mul";
      }
    }
    return is64(type) ? "int64_div" : "int_div";
  }
  case Instruction::Shl:
  case Instruction::LShr:
  case Instruction::AShr:
  case Instruction::And:
  case Instruction::Or:
  case Instruction::Xor:
    return "bitwise";
  case Instruction::ICmp:
  case Instruction::FCmp:
    lanes = lanesOf(inst->getOperand(0)->getType());
    return "compare";
  case Instruction::Select:
    return "compare";
  case Instruction::Trunc:
  case Instruction::ZExt:
  case Instruction::SExt:
    // Changing an integer's width is a shift or mask (or nothing, folded into
    // address arithmetic), not a trip through the conversion unit.
    return "bitwise";
  case Instruction::FPToUI:
  case Instruction::FPToSI:
  case Instruction::UIToFP:
  case Instruction::SIToFP:
  case Instruction::FPTrunc:
  case Instruction::FPExt:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::AddrSpaceCast:
    return "convert";
  case Instruction::Br:
  case Instruction::Switch:
  case Instruction::IndirectBr:
  case Instruction::Ret:
  case Instruction::Unreachable:
    return "branch";
  case Instruction::Load:
    return "load";
  case Instruction::Store:
    lanes = lanesOf(inst->getOperand(0)->getType());
    return "store";
  case Instruction::AtomicRMW:
  case Instruction::AtomicCmpXchg:
    lanes = 1;
    return "atomic";
  case Instruction::Fence:
    return "barrier";
  case Instruction::PHI:
    lanes = 1;
    return "";  // SSA bookkeeping, no machine instruction: not counted
  case Instruction::GetElementPtr:
    lanes = 1;
    return "int_add";  // address arithmetic
  case Instruction::Call:
    return classifyCall(llvm::cast<llvm::CallInst>(inst), lanes);
  default:
    lanes = 1;
    return "other";  // alloca, bitcast, vector element moves
  }
}

// Short opcode text for the sites table: the LLVM opcode, plus the callee's
// builtin name for calls ("call sin").
inline std::string opcodeText(const llvm::Instruction* inst)
{
  std::string text = inst->getOpcodeName();
  if (const llvm::CallInst* call = llvm::dyn_cast<llvm::CallInst>(inst))
  {
    if (const llvm::Function* f = call->getCalledFunction())
      text += " " + builtinName(f->getName().str());
  }
  return text;
}

// Address space a load/store instruction names in its pointer type (2 = constant).
inline unsigned pointerSpace(const llvm::Instruction* inst)
{
  if (const llvm::LoadInst* ld = llvm::dyn_cast<llvm::LoadInst>(inst))
    return ld->getPointerAddressSpace();
  if (const llvm::StoreInst* st = llvm::dyn_cast<llvm::StoreInst>(inst))
    return st->getPointerAddressSpace();
  return 0;
}

} // namespace tracekit
