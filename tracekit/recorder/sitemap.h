// Static instruction ids ("sites") for the recorder plugin.
//
// Every instruction of every function in the kernel's module gets an id, in
// module order, when a launch begins.  Lookup runs once per executed
// instruction, so it is an open-addressing table keyed by the instruction's
// address instead of a node-based map.
#pragma once

#include <cstdint>
#include <vector>

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"

namespace tracekit
{

class SiteMap
{
public:
  static constexpr uint32_t NONE = 0xFFFFFFFFu;

  void build(const llvm::Module* module)
  {
    m_insts.clear();
    for (const llvm::Function& f : *module)
      for (const llvm::BasicBlock& bb : f)
        for (const llvm::Instruction& i : bb)
          m_insts.push_back(&i);
    size_t cap = 16;
    while (cap < 2 * m_insts.size())
      cap <<= 1;
    m_mask = cap - 1;
    m_keys.assign(cap, nullptr);
    m_vals.assign(cap, NONE);
    for (uint32_t id = 0; id < m_insts.size(); id++)
    {
      size_t h = hash(m_insts[id]);
      while (m_keys[h])
        h = (h + 1) & m_mask;
      m_keys[h] = m_insts[id];
      m_vals[h] = id;
    }
  }

  uint32_t find(const llvm::Instruction* inst) const
  {
    size_t h = hash(inst);
    while (true)
    {
      const llvm::Instruction* k = m_keys[h];
      if (k == inst)
        return m_vals[h];
      if (!k)
        return NONE;
      h = (h + 1) & m_mask;
    }
  }

  size_t size() const { return m_insts.size(); }
  const std::vector<const llvm::Instruction*>& instructions() const { return m_insts; }

private:
  std::vector<const llvm::Instruction*> m_insts;
  std::vector<const llvm::Instruction*> m_keys{nullptr};
  std::vector<uint32_t> m_vals{NONE};
  size_t m_mask = 0;

  size_t hash(const llvm::Instruction* p) const
  {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x = (x >> 4) * 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 20) & m_mask;
  }
};

} // namespace tracekit
