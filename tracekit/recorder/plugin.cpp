// tracekit recorder: an Oclgrind plugin that writes every memory access and
// per-(work-item, site) instruction counts of recorded work-groups as binary,
// columnar blocks (stream.h) to a file descriptor.
//
// Threading: Oclgrind runs work-groups on several worker threads.  Everything a
// work-group produces is kept in thread-local state and handed over, whole, when
// the group completes: pushed onto a lock-free inbox, so a worker never waits for
// another (a worker preempted while holding a lock would stall the rest).
// Whichever worker then gets the mutex without waiting moves the inbox into a
// reorder buffer that collects groups in increasing linear index, the canonical
// row order of trace v1.  Full batches go to a writer thread of the plugin's own,
// so a worker never waits on the pipe while the reader is busy converting (only
// a backlog of MAX_QUEUED batches, or of MAX_INFLIGHT groups, makes workers wait);
// each launch's end waits until everything before it is written.
//
// Environment: TRACEKIT_FD (descriptor to write to) or TRACEKIT_OUT (path),
// TRACEKIT_SAMPLE (see sampler.h).  A sampled launch also reports what its whole
// grid touched (footprint.h), in FOOTPRINT records before its LAUNCH_END.
#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <oclgrind/Context.h>
#include <oclgrind/Kernel.h>
#include <oclgrind/KernelInvocation.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/Program.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include "llvm/IR/Argument.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"

#include "compiled.h"
#include "footprint.h"
#include "image.h"
#include "issue.h"
#include "opclass.h"
#include "roles.h"
#include "sampler.h"
#include "sitemap.h"
#include "stream.h"

using namespace oclgrind;

namespace tracekit
{

static const uint32_t NO_BUFFER = 0xFFFFFFFFu;
// local/private access placed in its work-group's / work-item's layout (stream.h)
static const uint32_t LAYOUT_BUFFER = 0xFFFFFFFEu;
static const size_t FLUSH_BYTES = 4u << 20;
static const size_t BATCH_ROWS = 1u << 16;
static const size_t MAX_QUEUED = 4;
static const long MAX_INFLIGHT = 256;  // finished groups not yet in a batch
static const size_t SCAN_SITES = 64;
static const uint64_t LOCAL_ALIGN = 16;

// A growable array of plain values: resize() leaves new elements uninitialised
// and appending is one memcpy.  The columns below are filled element by element
// after a resize, or appended whole, so std::vector's per-element construction
// (and zero-filling) would be wasted work on the hot path.
template <typename T> struct Column
{
  T* p = nullptr;
  size_t n = 0, cap = 0;

  Column() = default;
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;
  Column(Column&& o) noexcept : p(o.p), n(o.n), cap(o.cap) { o.p = nullptr, o.n = o.cap = 0; }
  Column& operator=(Column&& o) noexcept
  {
    std::swap(p, o.p), std::swap(n, o.n), std::swap(cap, o.cap);
    return *this;
  }
  ~Column() { free(p); }

  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  T* data() { return p; }
  const T* data() const { return p; }
  T& operator[](size_t i) { return p[i]; }
  const T& operator[](size_t i) const { return p[i]; }
  T& back() { return p[n - 1]; }
  void clear() { n = 0; }
  void reserve(size_t c)
  {
    if (c <= cap)
      return;
    size_t nc = std::max<size_t>(c, std::max<size_t>(cap * 2, 256));
    T* q = (T*)realloc(p, nc * sizeof(T));
    if (!q)
      throw std::bad_alloc();
    p = q, cap = nc;
  }
  void resize(size_t m)
  {
    reserve(m);
    n = m;
  }
  void push_back(T v)
  {
    if (__builtin_expect(n == cap, 0))
      reserve(n + 1);
    p[n++] = v;
  }
  void append(const Column& o)
  {
    if (o.n == 0)
      return;
    reserve(n + o.n);
    std::memcpy(p + n, o.p, o.n * sizeof(T));
    n += o.n;
  }
};

// Columns of one or more consecutive recorded work-groups (see stream.h).
struct GroupColumns
{
  Column<uint64_t> groups, naccs, ninss, off, cnt, issue;
  Column<uint32_t> aitem, aseq, site, buf, iitem, isite, iruns;
  Column<uint16_t> size;
  Column<uint8_t> kind;

  size_t rows() const { return off.size() + cnt.size(); }

  // Calls f(column of a, the same column of b) for every column, in the order of
  // a GROUPS record (stream.h): the one list of columns there is.
  template <typename A, typename B, typename F> static void zip(A& a, B& b, F&& f)
  {
    f(a.groups, b.groups);
    f(a.naccs, b.naccs);
    f(a.ninss, b.ninss);
    zipAccesses(a, b, f);
    f(a.cnt, b.cnt);
    f(a.iitem, b.iitem);
    f(a.isite, b.isite);
    f(a.iruns, b.iruns);
  }
  // The same for the eight per-access columns only.
  template <typename A, typename B, typename F> static void zipAccesses(A& a, B& b, F&& f)
  {
    f(a.off, b.off);
    f(a.aitem, b.aitem);
    f(a.aseq, b.aseq);
    f(a.site, b.site);
    f(a.buf, b.buf);
    f(a.size, b.size);
    f(a.kind, b.kind);
    f(a.issue, b.issue);
  }
  void append(const GroupColumns& g)
  {
    zip(*this, g, [](auto& c, const auto& o) { c.append(o); });
  }
  // Empties every column but keeps the memory, so a thread reuses it group after group.
  void clear()
  {
    zip(*this, *this, [](auto& c, auto&) { c.clear(); });
  }
};

// A finished group on its way from a worker to the ordered batch; a node of the
// lock-free inbox and free lists.
struct DoneGroup
{
  uint64_t group = 0;
  GroupColumns cols;
  DoneGroup* next = nullptr;
};

// Lock-free stack of nodes.  Nodes are pushed one at a time and only ever taken
// all at once (exchange), which is safe from the ABA problem without counters.
static void pushNode(std::atomic<DoneGroup*>& head, DoneGroup* d)
{
  DoneGroup* h = head.load(std::memory_order_relaxed);
  do
    d->next = h;
  while (!head.compare_exchange_weak(h, d, std::memory_order_release, std::memory_order_relaxed));
}

// One work-item's share of a recorded work-group.
struct ItemState
{
  uint32_t nacc = 0;              // accesses so far (the next one's seq)
  std::vector<uint32_t> counts;   // executions per site (dense)
  std::vector<uint32_t> touched;  // sites with a non-zero count
  std::vector<uint32_t> trips;    // per loop: iterations since the item last entered it (issue.h)
};

// Local or private memory of one work-group / work-item, flattened: each buffer
// gets a base offset in allocation order.
struct SpaceLayout
{
  std::vector<uint64_t> base;
  uint64_t bump = 0;
  size_t live = 0;
};

// What the per-instruction path needs sits at the front, read through one
// pointer: the site list of the launch (a copy, ending in a null entry so the
// successor of the last site needs no bounds check), the current work-item and
// its count array.
struct alignas(128) ThreadState  // aligned: threads never share a cache line of it
{
  uint32_t lastSite = 0;
  uint32_t nsites = 0;
  const llvm::Instruction* const* insts = nullptr;
  const WorkItem* lastItem = nullptr;
  uint32_t* lastCounts = nullptr;  // lastState->counts
  // Small kernels: count every site on the common path and find the executed
  // ones by scanning all sites when the group ends, instead of keeping a list.
  bool scanSites = false;
  const uint8_t* counted = nullptr;
  ItemState* lastState = nullptr;
  std::vector<const llvm::Instruction*> siteInsts;  // insts points here
  int32_t launch = -1;
  uint64_t group = 0;
  std::vector<ItemState> items;
  // The group's columns: accesses are written here as they happen, in arrival
  // order; instruction counts are added when the group ends, outside the lock.
  GroupColumns done;
  size_t accRows = 0;        // accesses in ``done`` (its access columns are sized at the end)
  size_t accCap = 0;         // rows every access column of ``done`` has room for
  uint32_t lastAccItem = 0;  // work-item of the last access
  bool accInOrder = true;    // accesses arrived item after item (no interleaving)
  GroupColumns scratch;      // reordering space when they did not
  // How the last Memory seen splits an address into buffer number and offset
  // (read off Oclgrind once, then done inline); valid for the current group,
  // whose local and private Memory objects live as long as it does.
  const Memory* decodeMem = nullptr;
  const SpaceLayout* decodeLayout = nullptr;  // local/private: its layout, if it has one
  unsigned decodeSpace = 0;
  unsigned bufferBits = 0;
  uint64_t offsetMask = 0;
  std::unordered_map<const Memory*, SpaceLayout> layouts;
  DoneGroup* freeNodes = nullptr;  // this thread's share of emptied hand-over nodes
  // The image call being executed (work-item, site, earlier executions of the site)
  // and the texels it has read so far, at most the 2 x 2 x 2 of a 3-D linear filter.
  const ItemState* imgItem = nullptr;
  uint32_t imgSite = 0, imgCall = 0, imgSampler = 0, imgTexels = 0;
  uint64_t texels[8];
};
// Per-thread state lives behind a plain (constant-initialised) thread_local
// pointer: a thread_local object with a constructor would make every access on
// the per-instruction path go through a TLS wrapper call.
static thread_local ThreadState* t_state = nullptr;
// The same pointer while the thread runs a recorded work-group, null otherwise:
// the one test every callback makes first.
static thread_local ThreadState* t_rec = nullptr;

static inline bool recording()
{
  return t_rec != nullptr;
}

static inline ThreadState& ts()
{
  ThreadState* s = t_state;
  if (__builtin_expect(s == nullptr, 0))
    s = t_state = new ThreadState();
  return *s;
}

class Recorder : public Plugin
{
public:
  Recorder(const Context* context) : Plugin(context)
  {
    const char* fd = getenv("TRACEKIT_FD");
    const char* path = getenv("TRACEKIT_OUT");
    if (fd && *fd)
      m_fd = atoi(fd);
    else if (path && *path)
      m_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (!m_sampler.parse(getenv("TRACEKIT_SAMPLE")))
    {
      fprintf(stderr, "tracekit: bad TRACEKIT_SAMPLE value '%s'\n", getenv("TRACEKIT_SAMPLE"));
      m_sampler = Sampler();
    }
    m_out.raw(STREAM_MAGIC, 8);
    m_writer = std::thread(&Recorder::writerLoop, this);
  }

  ~Recorder() override
  {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      flushLocked();
    }
    {
      std::lock_guard<std::mutex> q(m_qmutex);
      m_stop = true;
    }
    m_qcv.notify_all();
    m_writer.join();
    for (DoneGroup* d = m_free.exchange(nullptr); d;)
    {
      DoneGroup* next = d->next;
      delete d;
      d = next;
    }
    if (m_fd >= 0 && !getenv("TRACEKIT_FD"))
      close(m_fd);
  }

  bool isThreadSafe() const override { return true; }

  void kernelBegin(const KernelInvocation* ki) override;
  void kernelEnd(const KernelInvocation* ki) override;
  void workGroupBegin(const WorkGroup* wg) override;
  void workGroupComplete(const WorkGroup* wg) override;

  void instructionExecuted(const WorkItem* wi, const llvm::Instruction* inst,
                           const TypedValue& result) override
  {
    ThreadState* t = t_rec;
    if (!t)
      return;
    // Straight-line code runs site after site, in one work-item: try the
    // successor of the last site first.  Anything else
    // (a jump, another work-item, a site's first execution) is the out-of-line
    // general path, a tail call, so this path saves no registers.
    uint32_t s = t->lastSite + 1;
    if (__builtin_expect(t->insts[s] == inst && wi == t->lastItem, 1))
    {
      uint32_t& c = t->lastCounts[s];
      if (__builtin_expect(c != 0 || t->scanSites, 1))
      {
        c++;
        t->lastSite = s;
        return;
      }
    }
    count(t, wi, inst);
  }

  void memoryLoad(const Memory* m, const WorkItem* wi, size_t addr, size_t size) override
  {
    if (m_footprintOn)
      touch(m, addr, size, true, false);
    if (recording())
      access(m, wi, addr, size, OP_LOAD);
  }
  void memoryStore(const Memory* m, const WorkItem* wi, size_t addr, size_t size,
                   const uint8_t*) override
  {
    // a store of an undefined value (Oclgrind's front end writes one before filling
    // a vector component by component) is deleted by any optimizing compiler
    if (__builtin_expect(!m_deadStores.empty(), 0) && m_deadStores.count(wi->getCurrentInstruction()))
      return;
    if (m_footprintOn)
      touch(m, addr, size, false, true);
    if (recording())
      access(m, wi, addr, size, OP_STORE);
  }
  // Oclgrind reports an atomic as a load then (if it writes) a store; one
  // trace row per atomic operation, taken from the load.
  void memoryAtomicLoad(const Memory* m, const WorkItem* wi, AtomicOp, size_t addr,
                        size_t size) override
  {
    if (m_footprintOn)
      touch(m, addr, size, true, true);
    if (recording())
      access(m, wi, addr, size, OP_ATOMIC);
  }

  void memoryAllocated(const Memory* m, size_t addr, size_t size, cl_mem_flags flags,
                       const uint8_t*) override;
  void memoryDeallocated(const Memory* m, size_t addr) override;
  void log(MessageType type, const char* message) override;

private:
  std::mutex m_mutex;
  int m_fd = -1;
  std::atomic<bool> m_broken{false};  // set by the writer thread
  ByteSink m_out;
  Sampler m_sampler;
  // The whole grid's footprint, kept while a sampled launch runs (footprint.h).
  FootprintTable m_footprint;
  bool m_footprintOn = false;
  std::unordered_map<uint64_t, uint64_t> m_bufferBytes;  // live global buffers
  SiteMap m_sites;
  LoopTable m_loops;  // issue.h: the loops around each site, and which sites start a header
  std::vector<uint8_t> m_siteSpace;  // address space, or SITE_IMAGE_READ/WRITE (image.h)
  std::vector<ImageArg> m_images;     // the launch's image arguments
  std::vector<uint8_t> m_siteCounted;
  std::vector<Role> m_siteRole;  // roles.h: address, loop control or neither
  // compiled.h: instructions of the site's class on its line after an O3 compile, -1 unknown
  std::vector<int64_t> m_siteCompiled;
  std::unordered_set<const llvm::Instruction*> m_deadStores;  // stores of undef: neither run nor counted
  std::map<std::pair<const llvm::Module*, std::string>, CompiledView> m_compiledViews;
  int32_t m_launch = -1;
  bool m_active = false;
  Size3 m_local;
  size_t m_itemsPerGroup = 0;
  Size3 m_groups;
  uint64_t m_nextGroup = 0;
  uint64_t m_groupsRecorded = 0;
  std::atomic<uint64_t> m_localBytes{0};
  std::map<uint64_t, DoneGroup*> m_pending;
  std::atomic<DoneGroup*> m_inbox{nullptr};  // finished groups, not yet in m_pending
  std::atomic<DoneGroup*> m_free{nullptr};   // emptied nodes, for any worker to take
  std::atomic<long> m_inflight{0};           // groups in the inbox or m_pending
  GroupColumns m_batch;

  // The writer thread's queue: serialised records (bytes) and group batches, in
  // stream order; emptied batches come back through m_spare to keep their memory.
  struct Chunk
  {
    std::vector<uint8_t> bytes;
    GroupColumns cols;
    int32_t launch = -1;
    bool isBatch = false;
  };
  std::mutex m_qmutex;
  std::condition_variable m_qcv;    // the writer waits for work
  std::condition_variable m_qdone;  // producers wait for room, or for an empty queue
  std::deque<Chunk> m_queue;
  std::vector<GroupColumns> m_spare;
  size_t m_queuedBatches = 0;
  bool m_writing = false;
  bool m_stop = false;
  std::thread m_writer;

  // The site of ``inst``: as a rule the one after the last site this thread saw.
  uint32_t siteOf(const ThreadState* t, const llvm::Instruction* inst) const
  {
    uint32_t s = t->lastSite + 1;
    if (t->insts[s] == inst)
      return s;
    return inst ? m_sites.find(inst) : SiteMap::NONE;
  }
  __attribute__((noinline)) void count(ThreadState* t, const WorkItem* wi, const llvm::Instruction* inst)
  {
    uint32_t s = siteOf(t, inst);
    if (s == SiteMap::NONE)
      return;
    t->lastSite = s;
    ItemState* st = itemOf(t, wi);
    // a loop header's first instruction (never on the fast path, see startThreadLaunch):
    // entered along a back edge the loop's trip count grows, from outside it restarts
    if (uint32_t h = m_loops.head[s])
      st->trips[h - 1] = m_loops.tripOnEntry(h, wi->getPreviousBlock(), st->trips[h - 1]);
    // Outside small kernels, a site of no instruction class keeps a non-zero count
    // that is never reset nor written: it stays off the touched list and this path.
    if (st->counts[s]++ == 0 && t->counted[s] && !t->scanSites)
      st->touched.push_back(s);
  }
  ItemState* itemOf(ThreadState* t, const WorkItem* wi)
  {
    if (wi == t->lastItem)
      return t->lastState;
    Size3 lid = wi->getLocalID();
    size_t idx = lid.x + m_local.x * (lid.y + m_local.y * lid.z);
    ItemState* st = &t->items[idx < t->items.size() ? idx : 0];
    t->lastItem = wi;
    t->lastState = st;
    t->lastCounts = st->counts.data();
    return st;
  }

  void access(const Memory* m, const WorkItem* wi, size_t addr, size_t size, uint8_t op);
  // The issue tag (issue.h) of an access at ``site``.  Oclgrind reports an instruction's
  // memory accesses before the instruction itself, so an access by a header's first
  // instruction sees the trip count that count() is about to store.
  uint64_t issueOf(ItemState* st, const WorkItem* wi, uint32_t site) const
  {
    uint32_t h = m_loops.head[site];
    if (__builtin_expect(h == 0, 1))
      return m_loops.issue(site, st->trips.data());
    uint32_t& trip = st->trips[h - 1];
    uint32_t kept = trip;
    trip = m_loops.tripOnEntry(h, wi->getPreviousBlock(), trip);
    uint64_t key = m_loops.issue(site, st->trips.data());
    trip = kept;
    return key;
  }
  void touch(const Memory* m, size_t addr, size_t size, bool read, bool written)
  {
    unsigned as = m->getAddressSpace();
    if (as == AddrSpaceGlobal || as == AddrSpaceConstant)
      m_footprint.touch(m->extractBuffer(addr), m->extractOffset(addr), size, read, written);
  }
  void emitFootprintLocked();
  bool imageTexel(ThreadState* t, const ItemState* st, const WorkItem* wi, uint32_t site, uint8_t kind,
                  size_t buf, uint64_t& offset, size_t& size, uint32_t& buffer);
  void startThreadLaunch();
  void emitBatchLocked();
  void drainLocked(bool all);
  void absorbLocked();
  DoneGroup* takeNode(ThreadState& t);
  void releaseNode(DoneGroup* d);
  void flushLocked();
  void waitWrittenLocked();
  void writerLoop();
  void writeBatch(const GroupColumns& b, int32_t launch);
  void writeAll(struct iovec* iov, int n);
  std::string launchJson(const KernelInvocation* ki);
};

// --- memory accesses ------------------------------------------------------

// The flattened layout of a local or private Memory, if the thread has one.
static const SpaceLayout* layoutOf(ThreadState* t, const Memory* m)
{
  auto it = t->layouts.find(m);
  return it != t->layouts.end() ? &it->second : nullptr;
}

// Reads how ``m`` splits addresses (Oclgrind keeps the buffer number in the top
// bits) and checks the inline split against Oclgrind's own on ``addr``; if the two
// ever disagreed, every address would be split by calling Oclgrind.
static bool learnDecoding(ThreadState* t, const Memory* m, size_t addr)
{
  uint64_t bufferMask = m->extractBuffer(~(size_t)0);
  unsigned bits = (unsigned)__builtin_popcountll(bufferMask);
  uint64_t offsetMask = m->extractOffset(~(size_t)0);
  bool ok = bits < 64 && bufferMask == (1ull << bits) - 1 &&
            (bits ? (uint64_t)addr >> (64 - bits) : 0) == m->extractBuffer(addr) &&
            (addr & offsetMask) == m->extractOffset(addr);
  if (!ok)
    return false;
  t->decodeMem = m;
  t->decodeSpace = m->getAddressSpace();
  t->decodeLayout = layoutOf(t, m);
  t->bufferBits = bits;
  t->offsetMask = offsetMask;
  return true;
}

// Makes room for more accesses in every access column of the thread's group.
static void growAccesses(ThreadState* t)
{
  size_t want = std::max<size_t>(t->accRows * 2, 1024);
  GroupColumns::zipAccesses(t->done, t->done, [&](auto& c, auto&) { c.reserve(want); });
  t->accCap = want;
}

void Recorder::access(const Memory* m, const WorkItem* wi, size_t addr, size_t size, uint8_t op)
{
  ThreadState* t = &ts();
  ItemState* st = itemOf(t, wi);
  // the access belongs to the instruction being executed, not yet counted
  uint32_t site = siteOf(t, wi->getCurrentInstruction());
  unsigned as;
  uint64_t offset;
  size_t buf;
  const SpaceLayout* layout;
  if (__builtin_expect(m == t->decodeMem || learnDecoding(t, m, addr), 1))
  {
    as = t->decodeSpace;
    offset = addr & t->offsetMask;
    buf = t->bufferBits ? addr >> (64 - t->bufferBits) : 0;
    layout = t->decodeLayout;
  }
  else
  {
    as = m->getAddressSpace();
    offset = m->extractOffset(addr);
    buf = m->extractBuffer(addr);
    layout = layoutOf(t, m);
  }
  uint32_t buffer;
  uint8_t space;
  if (as == AddrSpaceGlobal || as == AddrSpaceConstant)
  {
    uint8_t ss = site != SiteMap::NONE ? m_siteSpace[site] : 0;
    if (__builtin_expect(ss >= SITE_IMAGE_READ, 0))
    {
      if (!imageTexel(t, st, wi, site, ss, buf, offset, size, buffer))
        return;  // another channel of a texel this call already read
      space = SPACE_IMAGE;
    }
    else
    {
      space = as == AddrSpaceConstant || ss == AddrSpaceConstant ? SPACE_CONSTANT : SPACE_GLOBAL;
      buffer = (uint32_t)buf;
    }
  }
  else
  {
    space = as == AddrSpaceLocal ? SPACE_LOCAL : SPACE_PRIVATE;
    buffer = NO_BUFFER;
    if (layout && buf < layout->base.size())
    {
      offset += layout->base[buf];
      buffer = LAYOUT_BUFFER;
    }
  }
  // Straight into the group's columns.  Work-items run one after another until
  // a barrier, so the rows are usually in canonical (item, seq) order already;
  // if not, the group is reordered once when it ends.
  uint32_t item = (uint32_t)(st - t->items.data());
  t->accInOrder &= item >= t->lastAccItem;
  t->lastAccItem = item;
  size_t r = t->accRows;
  if (__builtin_expect(r == t->accCap, 0))
    growAccesses(t);
  GroupColumns& d = t->done;
  d.off.p[r] = offset;
  d.aitem.p[r] = item;
  d.aseq.p[r] = st->nacc++;
  d.site.p[r] = site;
  d.buf.p[r] = buffer;
  d.size.p[r] = (uint16_t)std::min<size_t>(size, 0xFFFF);
  d.kind.p[r] = (uint8_t)(space | (op << KIND_OP_SHIFT));
  d.issue.p[r] = site != SiteMap::NONE ? issueOf(st, wi, site) : 0;
  t->accRows = r + 1;
}

// One row per texel of each image call: Oclgrind reads an image channel by channel
// and a linear filter's footprint once per channel (image.h), so a load of a texel
// the call has already read is dropped (false).  Otherwise the access becomes the
// whole texel, and ``buffer`` carries the image's buffer and the read's sampler.
// A call is told from the next one at the same site by the site's execution count,
// which only grows once the call has finished.
__attribute__((noinline)) bool Recorder::imageTexel(ThreadState* t, const ItemState* st, const WorkItem* wi,
                                                    uint32_t site, uint8_t kind, size_t buf, uint64_t& offset,
                                                    size_t& size, uint32_t& buffer)
{
  uint32_t bytes = (uint32_t)size;
  for (const ImageArg& img : m_images)
    if (img.buffer == buf)
      bytes = img.texelBytes;
  uint64_t texel = bytes ? offset / bytes : offset;
  uint32_t call = st->counts[site];
  if (t->imgItem != st || t->imgSite != site || t->imgCall != call)
  {
    t->imgItem = st, t->imgSite = site, t->imgCall = call, t->imgTexels = 0;
    t->imgSampler = kind == SITE_IMAGE_READ ? samplerOf(wi, wi->getCurrentInstruction()) : 0;
  }
  for (uint32_t i = 0; i < t->imgTexels; i++)
    if (t->texels[i] == texel)
      return false;
  if (t->imgTexels < 8)
    t->texels[t->imgTexels++] = texel;
  offset = texel * bytes;
  size = bytes;
  buffer = (uint32_t)(buf & 0xFFFF) | (t->imgSampler << 16);
  return true;
}

void Recorder::memoryAllocated(const Memory* m, size_t addr, size_t size, cl_mem_flags flags,
                               const uint8_t*)
{
  unsigned as = m->getAddressSpace();
  if (as == AddrSpaceGlobal || as == AddrSpaceConstant)
  {
    uint64_t payload[3] = {(uint64_t)m->extractBuffer(addr), (uint64_t)size, (uint64_t)flags};
    std::lock_guard<std::mutex> lock(m_mutex);
    m_bufferBytes[payload[0]] = size;
    m_out.record(REC_ALLOC, m_launch, payload, sizeof(payload));
    return;
  }
  ts().decodeMem = nullptr;  // the cached layout of ``m`` may be new or gone
  SpaceLayout& L = ts().layouts[m];
  size_t buf = m->extractBuffer(addr);
  if (buf >= L.base.size())
    L.base.resize(buf + 1, 0);
  L.bump = (L.bump + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
  L.base[buf] = L.bump;
  L.bump += size;
  L.live++;
}

void Recorder::memoryDeallocated(const Memory* m, size_t addr)
{
  unsigned as = m->getAddressSpace();
  if (as == AddrSpaceGlobal || as == AddrSpaceConstant)
  {
    uint64_t payload[1] = {(uint64_t)m->extractBuffer(addr)};
    std::lock_guard<std::mutex> lock(m_mutex);
    m_bufferBytes.erase(payload[0]);
    m_out.record(REC_FREE, m_launch, payload, sizeof(payload));
    return;
  }
  ts().decodeMem = nullptr;
  auto it = ts().layouts.find(m);
  if (it != ts().layouts.end() && --it->second.live == 0)
    ts().layouts.erase(it);
}

void Recorder::log(MessageType type, const char* message)
{
  if (type != ERROR && type != WARNING)
    return;
  std::string text(message ? message : "");
  ByteSink payload;
  payload.put<uint32_t>((uint32_t)type);
  payload.put<uint32_t>(0);
  payload.raw(text.data(), text.size());
  std::lock_guard<std::mutex> lock(m_mutex);
  m_out.record(REC_LOG, m_active ? m_launch : -1, payload.bytes.data(), payload.bytes.size());
}

// --- work-groups ----------------------------------------------------------

void Recorder::startThreadLaunch()
{
  ts().launch = m_launch;
  ts().siteInsts = m_sites.instructions();
  ts().siteInsts.push_back(nullptr);  // the sentinel after the last site
  // loop headers' first instructions always take the general path, which counts the trips
  for (size_t s = 0; s < m_sites.size(); s++)
    if (m_loops.head[s])
      ts().siteInsts[s] = nullptr;
  ts().insts = ts().siteInsts.data();
  ts().nsites = (uint32_t)m_sites.size();
  ts().counted = m_siteCounted.data();
  ts().scanSites = m_sites.size() <= SCAN_SITES;
  ts().lastSite = 0;
  ts().items.assign(m_itemsPerGroup, ItemState());
  for (ItemState& it : ts().items)
  {
    it.counts.assign(m_sites.size(), 0);
    it.trips.assign(m_loops.loops.size(), 0);
  }
}

void Recorder::workGroupBegin(const WorkGroup* wg)
{
  Size3 gid = wg->getGroupID();
  uint64_t g = gid.x + m_groups.x * (gid.y + m_groups.y * gid.z);
  ThreadState& t = ts();
  bool rec = m_sampler.pick(g);
  t.lastItem = nullptr;
  t_rec = rec ? &t : nullptr;
  if (!rec)
    return;
  if (t.launch != m_launch)
    startThreadLaunch();
  t.group = g;
  t.done.clear();
  t.accRows = 0;
  t.accCap = SIZE_MAX;
  GroupColumns::zipAccesses(t.done, t.done, [&](auto& c, auto&) { t.accCap = std::min(t.accCap, c.cap); });
  t.lastAccItem = 0;
  t.accInOrder = true;
  t.decodeMem = nullptr;
  t.imgItem = nullptr;
  auto it = t.layouts.find(wg->getLocalMemory());
  if (it != t.layouts.end())
  {
    // a running maximum without the mutex, which every group would otherwise take
    uint64_t bytes = it->second.bump, seen = m_localBytes.load(std::memory_order_relaxed);
    while (bytes > seen && !m_localBytes.compare_exchange_weak(seen, bytes, std::memory_order_relaxed))
    {
    }
  }
}

// Puts the group's accesses in canonical (item, seq) order when work-items
// interleaved (barriers): a stable counting sort by work-item, so each item's
// accesses keep their order.  One pass places the row numbers; the columns are
// then gathered in destination order (reads jump around, writes stream).
static void reorderAccesses(ThreadState& t)
{
  GroupColumns& g = t.done;
  const size_t nacc = g.off.size();
  Column<uint32_t>& src = t.scratch.iitem;   // source row of each destination row
  Column<uint32_t>& next = t.scratch.isite;  // next free destination row of each work-item
  next.resize(t.items.size());
  uint32_t at = 0;
  for (size_t i = 0; i < t.items.size(); i++)
  {
    next[i] = at;
    at += t.items[i].nacc;
  }
  src.resize(nacc);
  for (uint32_t r = 0; r < nacc; r++)
    src[next[g.aitem[r]]++] = r;
  GroupColumns::zipAccesses(g, t.scratch, [&](auto& col, auto& tmp) {
    tmp.resize(nacc);
    for (size_t i = 0; i < nacc; i++)
      tmp[i] = col[src[i]];
    std::swap(col, tmp);
  });
}

// Completes the thread's group in ``t.done``: accesses in canonical order, the
// group's header, then its instruction counts; resets the per-item state for the
// next group.  Instruction counts go out as runs: a
// work-item whose (site, count) list equals the previous item's adds one to
// that run's ``iruns`` instead of writing its own rows (most items of a launch
// execute every site equally often, so a group is usually a single run).
static void finishGroup(ThreadState& t)
{
  GroupColumns& g = t.done;
  GroupColumns::zipAccesses(g, g, [&](auto& c, auto&) { c.n = t.accRows; });
  if (!t.accInOrder)
    reorderAccesses(t);
  size_t nins = 0;
  for (ItemState& it : t.items)
    nins += t.scanSites ? t.nsites : it.touched.size();
  g.groups.push_back(t.group);
  g.naccs.push_back(g.off.size());
  g.ninss.push_back(nins);
  size_t n = g.cnt.size(), n0 = n;
  g.cnt.resize(n + nins);
  g.iitem.resize(n + nins);
  g.isite.resize(n + nins);
  g.iruns.resize(n + nins);
  size_t run = n, runRows = 0;  // the current run's first row and its row count
  bool inRun = false;
  uint32_t* prev = nullptr;  // small kernels: the previous item's counts, cleared once compared
  const size_t countBytes = t.nsites * sizeof(uint32_t);
  for (uint32_t i = 0; i < t.items.size(); i++)
  {
    ItemState& it = t.items[i];
    it.nacc = 0;
    if (t.scanSites)
    {
      // the whole count array of a small kernel is compared and cleared at once
      uint32_t* c = it.counts.data();
      bool same = prev && std::memcmp(c, prev, countBytes) == 0;
      if (prev)
        std::memset(prev, 0, countBytes);
      prev = c;
      if (same)
      {
        for (size_t k = 0; k < runRows; k++)
          g.iruns[run + k]++;
        continue;
      }
      run = n;
      for (uint32_t s = 0; s < t.nsites; s++)
      {
        if (c[s] != 0 && t.counted[s])
        {
          g.cnt[n] = c[s];
          g.iitem[n] = i;
          g.isite[n] = s;
          g.iruns[n++] = 1;
        }
      }
      runRows = n - run;
      continue;
    }
    if (!std::is_sorted(it.touched.begin(), it.touched.end()))
      std::sort(it.touched.begin(), it.touched.end());
    bool same = inRun && it.touched.size() == runRows;
    for (size_t k = 0; same && k < runRows; k++)
      same = g.isite[run + k] == it.touched[k] && g.cnt[run + k] == it.counts[it.touched[k]];
    if (same)
    {
      for (size_t k = 0; k < runRows; k++)
        g.iruns[run + k]++;
    }
    else
    {
      run = n;
      runRows = it.touched.size();
      inRun = true;
      for (uint32_t s : it.touched)
      {
        g.cnt[n] = it.counts[s];
        g.iitem[n] = i;
        g.isite[n] = s;
        g.iruns[n++] = 1;
      }
    }
    for (uint32_t s : it.touched)
      it.counts[s] = 0;
    it.touched.clear();
  }
  if (prev)
    std::memset(prev, 0, countBytes);
  g.cnt.resize(n);
  g.iitem.resize(n);
  g.isite.resize(n);
  g.iruns.resize(n);
  g.ninss.back() = n - n0;
}

void Recorder::workGroupComplete(const WorkGroup* wg)
{
  if (!recording())
    return;
  ThreadState& t = ts();
  t_rec = nullptr;
  t.lastItem = nullptr;
  finishGroup(t);
  // Hand-over: the finished columns move into a node (a swap, the thread keeps the
  // node's emptied columns for its next group) and the node onto the inbox.
  DoneGroup* d = takeNode(t);
  d->group = t.group;
  std::swap(d->cols, t.done);
  pushNode(m_inbox, d);
  // Ordering is done by whoever holds the mutex; a worker that finds it taken goes
  // on with its next group, unless too many groups are already waiting.
  if (m_inflight.fetch_add(1, std::memory_order_relaxed) + 1 > MAX_INFLIGHT)
    m_mutex.lock();
  else if (!m_mutex.try_lock())
    return;
  std::lock_guard<std::mutex> lock(m_mutex, std::adopt_lock);
  absorbLocked();
  drainLocked(false);
}

// An emptied node: from the thread's own list, else all of the shared free list
// at once, else a new one.
DoneGroup* Recorder::takeNode(ThreadState& t)
{
  if (!t.freeNodes)
    t.freeNodes = m_free.exchange(nullptr, std::memory_order_acquire);
  DoneGroup* d = t.freeNodes;
  if (d)
    t.freeNodes = d->next;
  else
    d = new DoneGroup();
  d->next = nullptr;
  return d;
}

// Empties a node that has left the reorder buffer and makes it free for any worker.
void Recorder::releaseNode(DoneGroup* d)
{
  d->cols.clear();
  pushNode(m_free, d);
  m_inflight.fetch_sub(1, std::memory_order_relaxed);
}

// Moves every group of the inbox into the reorder buffer.
void Recorder::absorbLocked()
{
  DoneGroup* d = m_inbox.exchange(nullptr, std::memory_order_acquire);
  while (d)
  {
    DoneGroup* next = d->next;
    m_pending.emplace(d->group, d);
    d = next;
  }
}

// Hands the batch of consecutive groups to the writer thread (one GROUPS record).
void Recorder::emitBatchLocked()
{
  if (m_batch.groups.empty())
    return;
  flushLocked();  // records queued earlier keep their place in the stream
  std::unique_lock<std::mutex> q(m_qmutex);
  m_qdone.wait(q, [this] { return m_queuedBatches < MAX_QUEUED || m_broken; });
  Chunk c;
  c.isBatch = true;
  c.launch = m_launch;
  std::swap(c.cols, m_batch);
  if (!m_spare.empty())
  {
    std::swap(m_batch, m_spare.back());
    m_spare.pop_back();
  }
  m_queue.push_back(std::move(c));
  m_queuedBatches++;
  q.unlock();
  m_qcv.notify_one();
}

// Writes one batch as a GROUPS record straight from its column vectors (one
// writev, no staging copy of megabytes of rows).
void Recorder::writeBatch(const GroupColumns& b, int32_t launch)
{
  static const uint8_t zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint64_t counts[3] = {b.groups.size(), b.off.size(), b.cnt.size()};
  RecordHeader h{REC_GROUPS, launch, 0};
  struct iovec iov[2 + 2 * 15];
  int n = 0;
  size_t total = 0;
  auto add = [&](const void* p, size_t len) {
    if (len == 0)
      return;
    iov[n].iov_base = (void*)p;
    iov[n++].iov_len = len;
    total += len;
    if (pad8(len) != len)
    {
      iov[n].iov_base = (void*)zeros;
      iov[n++].iov_len = pad8(len) - len;
      total += pad8(len) - len;
    }
  };
  add(&h, sizeof(h));
  add(counts, sizeof(counts));
  GroupColumns::zip(b, b, [&](const auto& v, const auto&) { add(v.data(), v.size() * sizeof(v[0])); });
  h.nbytes = total - sizeof(h);
  writeAll(iov, n);
}

// Moves pending groups, in increasing index, into the batch: only the next
// expected one unless ``all`` (end of a launch, when a group may have been
// lost to a fatal error).  Big batches are serialised and written out.
void Recorder::drainLocked(bool all)
{
  while (!m_pending.empty())
  {
    auto it = m_pending.begin();
    if (!all && it->first != m_nextGroup)
      break;
    DoneGroup* d = it->second;
    m_batch.append(d->cols);
    m_groupsRecorded++;
    m_nextGroup = m_sampler.next(it->first + 1);
    m_pending.erase(it);
    releaseNode(d);
    if (m_batch.rows() >= BATCH_ROWS)
      emitBatchLocked();
  }
  if (all)
    emitBatchLocked();
  if (m_out.bytes.size() >= FLUSH_BYTES)
    flushLocked();
}

// Queues the small records gathered so far (launch JSON, allocations, logs).
void Recorder::flushLocked()
{
  if (m_out.bytes.empty())
    return;
  Chunk c;
  std::swap(c.bytes, m_out.bytes);
  {
    std::lock_guard<std::mutex> q(m_qmutex);
    m_queue.push_back(std::move(c));
  }
  m_qcv.notify_one();
}

// Blocks until the writer has written everything queued so far.
void Recorder::waitWrittenLocked()
{
  std::unique_lock<std::mutex> q(m_qmutex);
  m_qdone.wait(q, [this] { return m_queue.empty() && !m_writing; });
}

void Recorder::writerLoop()
{
  std::unique_lock<std::mutex> q(m_qmutex);
  while (true)
  {
    m_qcv.wait(q, [this] { return m_stop || !m_queue.empty(); });
    if (m_queue.empty())
      break;  // stopping, and nothing left to write
    Chunk c = std::move(m_queue.front());
    m_queue.pop_front();
    m_writing = true;
    q.unlock();
    if (c.isBatch)
      writeBatch(c.cols, c.launch);
    else if (!c.bytes.empty())
    {
      struct iovec iov = {c.bytes.data(), c.bytes.size()};
      writeAll(&iov, 1);
    }
    q.lock();
    m_writing = false;
    if (c.isBatch)
    {
      m_queuedBatches--;
      c.cols.clear();
      m_spare.push_back(std::move(c.cols));
    }
    m_qdone.notify_all();
  }
}

// Writes every byte of ``iov`` (a pipe may take them in several parts); only the
// writer thread calls it.
void Recorder::writeAll(struct iovec* iov, int n)
{
  while (!m_broken && m_fd >= 0 && n > 0)
  {
    ssize_t w = writev(m_fd, iov, std::min(n, IOV_MAX));
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
    {
      m_broken = true;
      fprintf(stderr, "tracekit: cannot write the recording stream (%s)\n", strerror(errno));
      return;
    }
    size_t left = (size_t)w;
    while (n > 0 && left >= iov->iov_len)
    {
      left -= iov->iov_len;
      iov++;
      n--;
    }
    if (n > 0)
    {
      iov->iov_base = (uint8_t*)iov->iov_base + left;
      iov->iov_len -= left;
    }
  }
}

// --- launches -------------------------------------------------------------

static std::string size3Json(const Size3& s)
{
  return "[" + std::to_string(s.x) + "," + std::to_string(s.y) + "," + std::to_string(s.z) + "]";
}

std::string Recorder::launchJson(const KernelInvocation* ki)
{
  const Kernel* k = ki->getKernel();
  const Program* p = k->getProgram();
  std::map<unsigned, uint64_t> argBuffer;
  std::map<unsigned, std::string> argExtra;  // image and sampler arguments
  for (auto it = k->values_begin(); it != k->values_end(); ++it)
  {
    if (const llvm::Argument* a = llvm::dyn_cast<llvm::Argument>(it->first))
    {
      unsigned i = a->getArgNo();
      std::string type = k->getArgumentTypeName(i).str();
      if (isImageType(type) && it->second.size == sizeof(Image*) && *(Image**)it->second.data)
      {
        const Image* img = *(Image**)it->second.data;
        uint64_t buf = m_context->getGlobalMemory()->extractBuffer(img->address);
        argBuffer[i] = buf;
        argExtra[i] = ",\"image\":" + imageJson(img, buf, k->getArgumentAccessQualifier(i));
      }
      else if (type == "sampler_t" && it->second.size == sizeof(size_t) && it->second.getPointer())
        argExtra[i] = ",\"sampler\":" +
                      std::to_string(((const llvm::ConstantInt*)it->second.getPointer())->getZExtValue());
      else if (a->getType()->isPointerTy() && it->second.size == sizeof(size_t))
        argBuffer[i] = m_context->getGlobalMemory()->extractBuffer(it->second.getPointer());
    }
  }
  std::string j = "{\"kernel\":" + jsonString(k->getName());
  j += ",\"work_dim\":" + std::to_string(ki->getWorkDim());
  j += ",\"global_size\":" + size3Json(ki->getGlobalSize());
  j += ",\"local_size\":" + size3Json(ki->getLocalSize());
  j += ",\"global_offset\":" + size3Json(ki->getGlobalOffset());
  j += ",\"num_groups\":" + size3Json(ki->getNumGroups());
  j += ",\"static_local_bytes\":" + std::to_string(k->getLocalMemorySize());
  j += ",\"build_options\":" + jsonString(p->getBuildOptions());
  j += ",\"source\":" + jsonString(p->getSource());
  j += ",\"sampling\":" + m_sampler.json();
  j += ",\"args\":[";
  for (unsigned i = 0; i < k->getNumArguments(); i++)
  {
    unsigned aq = k->getArgumentAddressQualifier(i);
    const char* q = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "global"
                    : aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "constant"
                    : aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "local"
                                                           : "private";
    j += std::string(i ? "," : "") + "{\"index\":" + std::to_string(i) +
         ",\"name\":" + jsonString(k->getArgumentName(i).str()) +
         ",\"type\":" + jsonString(k->getArgumentTypeName(i).str()) + ",\"address\":\"" + q + "\"";
    auto b = argBuffer.find(i);
    if (b != argBuffer.end() && (aq == CL_KERNEL_ARG_ADDRESS_GLOBAL || aq == CL_KERNEL_ARG_ADDRESS_CONSTANT))
      j += ",\"buffer\":" + std::to_string(b->second);
    auto x = argExtra.find(i);
    if (x != argExtra.end())
      j += x->second;
    j += "}";
  }
  j += "],\"sites\":{";
  std::string op, cls, file, line, col, lanes, role, compiled, operands;
  const std::vector<const llvm::Instruction*>& insts = m_sites.instructions();
  for (size_t s = 0; s < insts.size(); s++)
  {
    const llvm::Instruction* inst = insts[s];
    unsigned l = 1;
    std::string c = classify(inst, l);
    const char* sep = s ? "," : "";
    op += sep + jsonString(opcodeText(inst));
    cls += sep + jsonString(c);
    lanes += sep + std::to_string(l);
    role += sep + std::string("\"") + roleName(m_siteRole[s]) + "\"";
    compiled += sep + (s < m_siteCompiled.size() && m_siteCompiled[s] >= 0 ? std::to_string(m_siteCompiled[s])
                                                                           : std::string("null"));
    // the sites whose results this instruction takes: the data-flow graph the what-ifs slice
    operands += sep + std::string("[");
    bool first = true;
    for (const llvm::Use& u : inst->operands())
    {
      const llvm::Instruction* from = llvm::dyn_cast<llvm::Instruction>(u.get());
      uint32_t id = from ? m_sites.find(from) : SiteMap::NONE;
      if (id == SiteMap::NONE)
        continue;
      operands += (first ? "" : ",") + std::to_string(id);
      first = false;
    }
    operands += "]";
    const llvm::DILocation* loc = inst->getDebugLoc().get();
    file += sep + (loc ? jsonString(loc->getFilename().str()) : std::string("null"));
    line += sep + (loc ? std::to_string(loc->getLine()) : std::string("null"));
    col += sep + (loc ? std::to_string(loc->getColumn()) : std::string("null"));
  }
  j += "\"opcode\":[" + op + "],\"opclass\":[" + cls + "],\"lanes\":[" + lanes + "],\"file\":[" + file +
       "],\"line\":[" + line + "],\"column\":[" + col + "],\"role\":[" + role +
       "],\"compiled\":[" + compiled + "],\"operands\":[" + operands + "]}}";
  return j;
}

void Recorder::kernelBegin(const KernelInvocation* ki)
{
  std::lock_guard<std::mutex> lock(m_mutex);
  m_launch++;
  m_active = true;
  const llvm::Function* fn = ki->getKernel()->getFunction();
  m_sites.build(fn->getParent());
  m_loops.build(fn->getParent(), m_sites.instructions());
  m_siteSpace.assign(m_sites.size(), 0);
  m_siteCounted.assign(m_sites.size(), 1);
  m_siteRole.assign(m_sites.size(), Role::None);
  {
    auto roles = instructionRoles(fn->getParent());
    for (size_t s = 0; s < m_sites.size(); s++)
    {
      auto r = roles.find(m_sites.instructions()[s]);
      if (r != roles.end())
        m_siteRole[s] = r->second;
    }
  }
  auto key = std::make_pair(fn->getParent(), fn->getName().str());
  auto found = m_compiledViews.find(key);
  if (found == m_compiledViews.end())
    found = m_compiledViews.emplace(key, compiledView(fn->getParent(), key.second)).first;
  const CompiledView& view = found->second;
  m_siteCompiled.assign(m_sites.size(), -1);
  m_deadStores.clear();
  for (size_t s = 0; s < m_sites.size(); s++)
  {
    const llvm::Instruction* inst = m_sites.instructions()[s];
    unsigned lanes;
    uint8_t img = imageSiteKind(inst);
    m_siteSpace[s] = img ? img : (uint8_t)pointerSpace(inst);
    std::string cls = classify(inst, lanes);
    m_siteCounted[s] = !cls.empty();
    const llvm::DILocation* loc = inst->getDebugLoc().get();
    if (!view.empty() && !cls.empty() && loc && loc->getLine())
    {
      auto c = view.find({loc->getFilename().str(), loc->getLine(), cls});
      m_siteCompiled[s] = c == view.end() ? 0 : c->second;
    }
    const auto* store = llvm::dyn_cast<llvm::StoreInst>(inst);
    if (store && llvm::isa<llvm::UndefValue>(store->getValueOperand()))
    {
      m_deadStores.insert(inst);
      m_siteCounted[s] = 0;
    }
  }
  m_images.clear();
  const Kernel* kern = ki->getKernel();
  for (auto it = kern->values_begin(); it != kern->values_end(); ++it)
  {
    const llvm::Argument* a = llvm::dyn_cast<llvm::Argument>(it->first);
    if (a && isImageType(kern->getArgumentTypeName(a->getArgNo()).str()) && it->second.size == sizeof(Image*) &&
        *(Image**)it->second.data)
    {
      const Image* img = *(Image**)it->second.data;
      m_images.push_back({(uint32_t)m_context->getGlobalMemory()->extractBuffer(img->address), texelBytes(img)});
    }
  }
  m_local = ki->getLocalSize();
  m_itemsPerGroup = m_local.x * m_local.y * m_local.z;
  m_groups = ki->getNumGroups();
  m_sampler.start(m_groups.x * m_groups.y * m_groups.z);
  m_nextGroup = m_sampler.next(0);
  m_footprintOn = m_sampler.mode != Sampler::ALL;
  if (m_footprintOn)
    m_footprint.start(m_bufferBytes);
  m_groupsRecorded = 0;
  m_localBytes = 0;
  for (auto& [group, d] : m_pending)  // none, unless the last launch was cut short
    releaseNode(d);
  m_pending.clear();
  std::string j = launchJson(ki);
  m_out.record(REC_LAUNCH_BEGIN, m_launch, j.data(), j.size());
  flushLocked();
}

void Recorder::kernelEnd(const KernelInvocation* ki)
{
  std::lock_guard<std::mutex> lock(m_mutex);
  absorbLocked();  // every worker has handed over its groups by now
  drainLocked(true);
  emitFootprintLocked();
  std::string j = "{\"groups_recorded\":" + std::to_string(m_groupsRecorded) +
                  ",\"total_groups\":" + std::to_string(m_sampler.total) +
                  ",\"local_mem_bytes\":" + std::to_string(m_localBytes.load()) + "}";
  m_out.record(REC_LAUNCH_END, m_launch, j.data(), j.size());
  m_active = false;
  flushLocked();
  waitWrittenLocked();  // a launch that ended is on the pipe, whatever happens next
}

// One FOOTPRINT record per buffer the sampled launch touched (stream.h).
void Recorder::emitFootprintLocked()
{
  if (!m_footprintOn)
    return;
  m_footprintOn = false;
  const auto& bufs = m_footprint.buffers();
  for (size_t b = 0; b < bufs.size(); b++)
  {
    const BufferFootprint& f = bufs[b];
    bool any = false;
    for (size_t w = 0; w < f.read.size() && !any; w++)
      any = f.read[w] || f.written[w];
    if (!any)
      continue;
    ByteSink payload;
    payload.put<uint64_t>(b);
    payload.put<uint64_t>(FootprintTable::GRANULE);
    payload.put<uint64_t>(f.granules);
    payload.raw(f.read.data(), f.read.size() * 8);
    payload.raw(f.written.data(), f.written.size() * 8);
    m_out.record(REC_FOOTPRINT, m_launch, payload.bytes.data(), payload.bytes.size());
  }
  m_footprint.clear();
}

} // namespace tracekit

static tracekit::Recorder* g_recorder = nullptr;

extern "C" __attribute__((visibility("default"))) void initializePlugins(Context* context)
{
  g_recorder = new tracekit::Recorder(context);
  context->registerPlugin(g_recorder);
}

extern "C" __attribute__((visibility("default"))) void releasePlugins(Context* context)
{
  context->unregisterPlugin(g_recorder);
  delete g_recorder;
  g_recorder = nullptr;
}
