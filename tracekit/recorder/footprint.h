// What a sampled launch's whole grid touches: per global buffer, one bit per
// GRANULE bytes that some work-group read, and one that some work-group wrote.
//
// A recording that keeps only some work-groups still runs all of them (Oclgrind
// executes every group), so the recorder can note, cheaply, the granules every
// group touches.  The replay then knows the launch's compulsory traffic (each
// granule crosses from DRAM at least once) without the recorded rows of every
// group.  Bits are set with relaxed atomic ORs from any worker thread; a plain
// load first skips the write when the bit is already set, so threads reading the
// same data do not fight over the word.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tracekit
{

struct BufferFootprint
{
  uint64_t granules = 0;
  std::vector<uint64_t> read, written;  // one bit per granule, bit g of word g / 64
};

class FootprintTable
{
public:
  static const uint64_t GRANULE = 32;

  // Empty bitmaps for every live buffer (``sizes``: Oclgrind buffer number -> bytes).
  void start(const std::unordered_map<uint64_t, uint64_t>& sizes)
  {
    uint64_t n = 0;
    for (const auto& [buf, size] : sizes)
      n = std::max(n, buf + 1);
    m_bufs.assign(n, BufferFootprint());
    for (const auto& [buf, size] : sizes)
    {
      BufferFootprint& f = m_bufs[buf];
      f.granules = (size + GRANULE - 1) / GRANULE;
      f.read.assign((f.granules + 63) / 64, 0);
      f.written.assign((f.granules + 63) / 64, 0);
    }
  }

  void touch(uint64_t buf, uint64_t offset, uint64_t size, bool read, bool written)
  {
    if (buf >= m_bufs.size() || !size)
      return;
    BufferFootprint& f = m_bufs[buf];
    uint64_t last = (offset + size - 1) / GRANULE;
    if (last >= f.granules)
      last = f.granules - 1;  // an out-of-bounds access (Oclgrind reports it) marks what exists
    for (uint64_t g = offset / GRANULE; g <= last && f.granules; g++)
    {
      if (read)
        set(f.read[g >> 6], g & 63);
      if (written)
        set(f.written[g >> 6], g & 63);
    }
  }

  const std::vector<BufferFootprint>& buffers() const { return m_bufs; }
  void clear() { m_bufs.clear(); }

private:
  std::vector<BufferFootprint> m_bufs;

  static void set(uint64_t& word, uint64_t bit)
  {
    uint64_t mask = 1ull << bit;
    if (!(__atomic_load_n(&word, __ATOMIC_RELAXED) & mask))
      __atomic_fetch_or(&word, mask, __ATOMIC_RELAXED);
  }
};

} // namespace tracekit
