// Binary stream the recorder plugin writes and tracekit/recorder/stream.py reads.
//
// The stream starts with the 8 bytes "TKTRACE1", then records.  Each record is
// a 16-byte header {u32 type, i32 launch, u64 payload bytes} and a payload
// padded to a multiple of 8 bytes.  Everything is little-endian.  Per-access
// data only ever travels in GROUP records, as fixed-width columns, so the
// reader can wrap them with numpy.frombuffer without parsing rows.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tracekit
{

static const char STREAM_MAGIC[9] = "TKTRACE1";

enum RecordType : uint32_t
{
  REC_LAUNCH_BEGIN = 1,  // JSON: kernel, sizes, arguments, sites
  REC_GROUPS = 2,        // consecutive recorded work-groups: accesses and instruction counts
  REC_LAUNCH_END = 3,    // JSON: work-groups recorded, local memory size
  REC_ALLOC = 4,         // u64 buffer, u64 size, u64 flags (global memory)
  REC_FREE = 5,          // u64 buffer
  REC_LOG = 6,           // u32 message type, u32 zero, text
  REC_FOOTPRINT = 7,     // sampled launches only, before LAUNCH_END (footprint.h):
                         // u64 buffer, u64 granule bytes, u64 granules, then the read
                         // and the written bitmaps, u64[ceil(granules / 64)] each
};

// GROUPS payload: u64 n_groups, u64 n_acc, u64 n_ins, then columns, each padded to 8:
//   group u64[n_groups], accesses per group u64[n_groups], counts per group u64[n_groups],
//   offset u64[n_acc], item u32[n_acc], seq u32[n_acc], site u32[n_acc], buffer u32[n_acc],
//   size u16[n_acc], kind u8[n_acc] (space | op << 3), issue u64[n_acc] (issue.h),
//   count u64[n_ins], item u32[n_ins], site u32[n_ins], items u32[n_ins].
// Rows are in canonical order: by group, then item, then the item's own order
// (``seq``).  ``buffer`` is Oclgrind's buffer number for global and constant
// accesses, 0xFFFFFFFE for a local or private access placed in its layout
// (offset already includes the allocation's base) and 0xFFFFFFFF when unknown.
// An image access (space SPACE_IMAGE) is one texel: ``offset`` is the texel's
// first byte in the image's buffer, ``size`` the texel's bytes, the low 16 bits
// of ``buffer`` the image's buffer number (Oclgrind numbers global buffers in 16
// bits) and bits 16-23 the sampler of a read: IMAGE_SAMPLER_SET | Oclgrind's
// sampler bits (CLK_ADDRESS_*, CLK_FILTER_*, CLK_NORMALIZED_COORDS_TRUE); 0 for
// a write.
// An instruction-count row stands for ``items`` consecutive work-items from
// ``item`` on, each with that count at that site (trace v1's runs).
// Space and op codes are the positions in trace v1's SPACES and OPS lists
// (tracekit/schema.py), so the converter uses them as dictionary indices as they are.
enum Space : uint8_t
{
  SPACE_GLOBAL = 0,
  SPACE_LOCAL = 1,
  SPACE_CONSTANT = 2,
  SPACE_PRIVATE = 3,
  SPACE_IMAGE = 4,
};
static const unsigned KIND_OP_SHIFT = 3;
static const uint32_t IMAGE_SAMPLER_SET = 0x80;
enum Op : uint8_t
{
  OP_LOAD = 0,
  OP_STORE = 1,
  OP_ATOMIC = 2,
};

struct RecordHeader
{
  uint32_t type;
  int32_t launch;
  uint64_t nbytes;
};

inline size_t pad8(size_t n)
{
  return (n + 7) & ~(size_t)7;
}

// Appends little-endian values and padded blocks to a byte vector.
struct ByteSink
{
  std::vector<uint8_t> bytes;

  void raw(const void* data, size_t n)
  {
    const uint8_t* p = (const uint8_t*)data;
    bytes.insert(bytes.end(), p, p + n);
  }
  void pad()
  {
    bytes.resize(pad8(bytes.size()), 0);
  }
  template <typename T> void put(T value)
  {
    raw(&value, sizeof(T));
  }
  void record(RecordType type, int32_t launch, const void* payload, size_t n)
  {
    RecordHeader h{type, launch, (uint64_t)n};
    raw(&h, sizeof(h));
    raw(payload, n);
    pad();
  }
};

// JSON string literal (quotes included) for text of any origin.
inline std::string jsonString(const std::string& s)
{
  std::string out = "\"";
  for (unsigned char c : s)
  {
    switch (c)
    {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20)
      {
        char buf[8];
        snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      }
      else
        out += (char)c;
    }
  }
  return out + "\"";
}

} // namespace tracekit
