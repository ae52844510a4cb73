// Which issue of a memory instruction by its wave an access belongs to.
//
// A SIMD wave runs a loop's iterations together: iteration k of every lane still in
// the loop is one instruction of the wave.  Pairing each lane's k-th access of a site
// gets this wrong where lanes skip iterations (``if (lid < i)`` inside ``for i``: lane 0
// reads from i = 1 on, lane 5 from i = 6 on), so the recorder tags every access with
// the trip counts of the loops around its site, counted from each loop's entry.  Lanes
// with equal tags ran the same iterations; the replay forms requests from them.
//
// Trips are counted where a loop header is entered: from inside the loop (a back
// edge) the loop's count grows by one, from outside it starts again at zero.  Oclgrind
// says which block the work-item came from (WorkItem::getPreviousBlock), so only the
// header's first instruction needs looking at.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include "roles.h"  // FunctionLoops

namespace tracekit
{

struct LoopTable
{
  // loop of each index
  std::vector<const llvm::Loop*> loops;
  // per site: 1 + the loop whose header starts with the site's instruction, 0 otherwise
  std::vector<uint32_t> head;
  // per site: the loops around it, outermost first: index[offset[s]] .. index[offset[s + 1]]
  std::vector<uint32_t> offset, index;
  // keeps the analyses (and so the Loop objects) alive for the launch
  std::vector<std::unique_ptr<FunctionLoops>> functions;

  // ``sites``: the instruction of every site, in site order.
  void build(const llvm::Module* module, const std::vector<const llvm::Instruction*>& sites)
  {
    loops.clear();
    functions.clear();
    std::unordered_map<const llvm::Loop*, uint32_t> number;
    std::unordered_map<const llvm::Function*, const llvm::LoopInfo*> ofFunction;
    for (const llvm::Function& cf : *module)
    {
      if (cf.isDeclaration())
        continue;
      functions.push_back(std::make_unique<FunctionLoops>(const_cast<llvm::Function&>(cf)));
      ofFunction[&cf] = &functions.back()->li;
      for (const llvm::Loop* l : functions.back()->li.getLoopsInPreorder())
      {
        number[l] = (uint32_t)loops.size();
        loops.push_back(l);
      }
    }
    head.assign(sites.size(), 0);
    offset.assign(sites.size() + 1, 0);
    index.clear();
    std::vector<uint32_t> chain;
    for (size_t s = 0; s < sites.size(); s++)
    {
      offset[s] = (uint32_t)index.size();
      const llvm::Instruction* inst = sites[s];
      if (!inst)
        continue;
      const llvm::BasicBlock* bb = inst->getParent();
      auto li = ofFunction.find(bb->getParent());
      if (li == ofFunction.end())
        continue;
      const llvm::Loop* inner = li->second->getLoopFor(bb);
      chain.clear();
      for (const llvm::Loop* l = inner; l; l = l->getParentLoop())
        chain.push_back(number[l]);
      index.insert(index.end(), chain.rbegin(), chain.rend());
      if (inner && inner->getHeader() == bb && &bb->front() == inst)
        head[s] = number[inner] + 1;
    }
    offset[sites.size()] = (uint32_t)index.size();
  }

  // A loop's trip count when its header (loop ``h`` - 1) is entered from ``from``: one more
  // along a back edge, zero from outside the loop.
  uint32_t tripOnEntry(uint32_t h, const llvm::BasicBlock* from, uint32_t trip) const
  {
    return from && loops[h - 1]->contains(from) ? trip + 1 : 0;
  }

  // The tag of an access at ``site`` given the work-item's trip counts: the counts of the
  // loops around the site packed outermost first, 63 / depth bits each (a count that does
  // not fit wraps; the replay still tells such accesses apart by their order).
  uint64_t issue(uint32_t site, const uint32_t* trips) const
  {
    uint32_t a = offset[site], b = offset[site + 1];
    if (a == b)
      return 0;
    unsigned bits = 63 / (b - a);
    uint64_t mask = bits >= 32 ? 0xFFFFFFFFull : ((1ull << bits) - 1);
    uint64_t key = 0;
    for (uint32_t k = a; k < b; k++)
      key = (key << bits) | (trips[index[k]] & mask);
    return key;
  }
};

}  // namespace tracekit
