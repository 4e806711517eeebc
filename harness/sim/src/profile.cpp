// `cudalab explain`'s counting; profile.hpp says what is counted and how requests are formed.
//
// Per launch, each instruction (site) keeps, per thread of the block, how often the thread has
// executed it in the current barrier interval, and per warp a list of open requests: the k-th
// execution by lane L writes its address into request k of L's warp. When the block's threads
// have all reached a barrier, or the block has ended, every request is complete and is costed:
//  - global memory: the distinct 32-byte sectors its lanes' bytes fall in, against the sectors of
//    one contiguous span of as many distinct bytes from the same first address (a warp reading 32
//    floats in a row touches 4 sectors, 5 when the row is not 32-byte aligned; 32 floats 4 KiB
//    apart touch 32);
//  - shared memory: the wavefronts the access takes, by the phases an H100 serves a warp in
//    (shared_cost), against the same without bank conflicts; lanes reading one word share it.
// Only a sample of each launch's blocks is counted (kMaxCountedBlocks, evenly spread, the last
// one included): the last block stands for itself (it is often a partial one), each other for an
// equal share of the rest; where a request list overflowed (kMaxInstancesPerWarp), the totals are
// scaled to the lane accesses seen.
#include "profile.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "internal.hpp"
#include "sim/control.hpp"

namespace cudalab::sim::profile {

bool active = false;
bool counting = false;
unsigned posed_sm_count = 0;
bool every_block = false;

namespace {

using protocol::AccessSite;
using protocol::KernelProfile;

constexpr unsigned kWarp = 32;
constexpr unsigned kSectorShift = 5;  // 32-byte sectors
constexpr unsigned kBanks = 32;
constexpr unsigned kWordShift = 2;  // 4-byte banks
/// Blocks counted per launch: enough to see every code path of a regular grid (edges included),
/// few enough that explain at a representative size stays within seconds.
constexpr unsigned long long kMaxCountedBlocks = 48;
/// Open requests per site and warp in one barrier interval (a thread looping over many elements
/// without a barrier); executions past it are scaled for, not costed.
constexpr std::size_t kMaxInstancesPerWarp = 2048;
/// Open requests of all sites together (each about 330 bytes).
constexpr std::size_t kMaxPendingInstances = std::size_t{1} << 17;
/// The checked build splits a float2 or float4 into its components (GCC's scalar replacement of
/// aggregates, then one check per component), where a GPU makes one 8- or 16-byte access: a
/// thread's access that continues its previous one, from a nearby instruction, within one
/// aligned 8- or 16-byte chunk, is counted as part of it.
constexpr std::uintptr_t kVectorWindow = 256;  // bytes of code between the components' checks
constexpr std::uintptr_t kMaxVectorBytes = 16;

/// The lanes of one warp-level request: their addresses and sizes, and which lanes took part.
struct Instance {
  std::uint32_t mask = 0;
  std::array<std::uintptr_t, kWarp> address{};
  std::array<std::uint16_t, kWarp> size{};
};

/// One site's costs over a launch's counted blocks, or scaled over a kernel's launches.
struct Totals {
  double requests = 0;
  double active_lanes = 0;
  double units = 0;
  double ideal_units = 0;
  std::uint64_t lanes_seen = 0;    // lane accesses, costed or not
  std::uint64_t lanes_costed = 0;  // lane accesses that are part of a costed request
  unsigned worst_units = 0;
  unsigned worst_ideal = 0;
  std::int64_t stride = 0;
  bool have_worst = false;

  /// Keeps the request with the most units beyond its ideal (the first one if none has any).
  void consider(unsigned units_of, unsigned ideal_of, std::int64_t stride_of) {
    if (!have_worst || units_of - ideal_of > worst_units - worst_ideal) {
      worst_units = units_of;
      worst_ideal = ideal_of;
      stride = stride_of;
      have_worst = true;
    }
  }
};

/// An instruction of the running launch.
struct Site {
  std::uintptr_t pc = 0;
  bool shared = false;
  bool write = false;
  bool atomic = false;
  unsigned bytes = 0;
  std::string target;
  std::size_t element = 0;
  std::size_t inner = 0;
  std::size_t target_bytes = 0;
  std::vector<std::uint32_t> executed;  // per thread of the block, in this barrier interval
  // Per thread: its last load here (address + 1; 0: none), in which barrier interval and after how
  // many of its stores; the same load again, with neither between, is a value nvcc keeps in a register.
  std::vector<std::uintptr_t> loaded;
  std::vector<std::uint64_t> loaded_interval;
  std::vector<std::uint32_t> loaded_after_stores;
  std::vector<std::vector<Instance>> warps;  // per warp: its open requests, by k
  bool touched = false;                      // has open requests
  Totals totals;
};

/// A thread's last counted access: the request it is part of, and the bytes it covers.
struct LastAccess {
  Site* site = nullptr;  // none
  std::uint32_t k = 0;
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uintptr_t pc = 0;
  bool reused = false;  // a load not counted (a register holds it): so are its next components
};

struct Launch {
  const cudalab_sim_launch_desc* desc = nullptr;
  std::vector<protocol::BarrierInterval> intervals;  // by their place in a block's run
  std::size_t interval = 0;                          // the running block's, up to kMaxBarrierIntervals - 1
  int interval_from = 0;                             // the line of the barrier it began at
  std::vector<LastAccess> last_access;               // per thread of the block
  std::vector<std::uint32_t> stores;                 // per thread of the block: its stores so far
  std::uint64_t interval_serial = 0;                 // barrier intervals begun in the launch
  unsigned threads = 0;
  unsigned long long blocks = 0;
  unsigned long long stride = 1;  // every stride-th block is counted, and the last
  unsigned long long counted = 0;
  // What a counted block stands for: the last block itself (often a partial one), each other
  // counted block an equal share of the rest.
  double weight = 1;
  double others_weight = 1;
  std::unordered_map<std::uint64_t, std::size_t> index;  // pc << 1 | shared
  std::vector<std::unique_ptr<Site>> sites;
  std::vector<Site*> touched;
  std::size_t pending = 0;
  Site* last = nullptr;
  std::uint64_t last_key = 0;
};

/// A kernel's totals over its launches, per site.
struct Kernel {
  KernelProfile profile;
  std::map<std::uint64_t, std::pair<AccessSite, Totals>> sites;  // by pc << 1 | shared
};

struct State {
  Launch launch;
  std::vector<Kernel> kernels;
  std::vector<std::uintptr_t> scratch;  // words or sectors of one request
};

State& state() {
  static auto* s = new State;  // never destroyed: a kernel may run during static destruction
  return *s;
}

/// Bytes from one active lane's address to the next lane's, in the request (per lane where the
/// two nearest active lanes are not neighbours); 0 when fewer than two lanes took part.
std::int64_t stride_of(const Instance& in) {
  int previous = -1;
  for (unsigned lane = 0; lane < kWarp; ++lane) {
    if ((in.mask >> lane & 1u) == 0) continue;
    if (previous >= 0) {
      const auto gap = static_cast<std::int64_t>(lane) - previous;
      return (static_cast<std::int64_t>(in.address[lane]) -
              static_cast<std::int64_t>(in.address[static_cast<unsigned>(previous)])) /
             gap;
    }
    previous = static_cast<int>(lane);
  }
  return 0;
}

/// The active lanes' {address, size}, by address.
unsigned sorted_accesses(const Instance& in, std::array<std::pair<std::uintptr_t, std::uintptr_t>, kWarp>& out) {
  unsigned n = 0;
  for (std::uint32_t m = in.mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<unsigned>(std::countr_zero(m));
    out[n++] = {in.address[lane], std::max<std::uintptr_t>(in.size[lane], 1)};
  }
  std::sort(out.begin(), out.begin() + n);
  return n;
}

/// Global memory: {sectors touched, sectors of one span of the distinct bytes}.
std::pair<unsigned, unsigned> global_cost(const Instance& in) {
  std::array<std::pair<std::uintptr_t, std::uintptr_t>, kWarp> a{};
  const unsigned n = sorted_accesses(in, a);
  std::uintptr_t sectors = 0;
  std::uintptr_t distinct = 0;
  std::uintptr_t covered_sector = 0;  // the last sector counted, + 1
  std::uintptr_t covered_byte = 0;    // the end of the bytes counted
  for (unsigned i = 0; i < n; ++i) {
    const std::uintptr_t begin = a[i].first;
    const std::uintptr_t end = begin + a[i].second;
    std::uintptr_t first = begin >> kSectorShift;
    const std::uintptr_t last = (end - 1) >> kSectorShift;
    if (i > 0) first = std::max(first, covered_sector);
    if (first <= last) sectors += last - first + 1;
    covered_sector = std::max(covered_sector, last + 1);
    if (i == 0 || begin >= covered_byte) {
      distinct += end - begin;
    } else if (end > covered_byte) {
      distinct += end - covered_byte;
    }
    covered_byte = std::max(covered_byte, end);
  }
  const std::uintptr_t low = a[0].first;
  const std::uintptr_t ideal = ((low + distinct - 1) >> kSectorShift) - (low >> kSectorShift) + 1;
  return {static_cast<unsigned>(sectors), static_cast<unsigned>(std::min(ideal, sectors))};
}

/// The most distinct 4-byte words in one bank among the lanes of `lanes` (a phase), and the banks
/// they use; 0 for a phase without active lanes.
unsigned phase_cost(const Instance& in, std::uint32_t lanes, std::vector<std::uintptr_t>& words, std::uint32_t& banks) {
  words.clear();
  for (std::uint32_t m = in.mask & lanes; m != 0; m &= m - 1) {
    const auto lane = static_cast<unsigned>(std::countr_zero(m));
    const std::uintptr_t a = in.address[lane];
    const std::uintptr_t size = std::max<std::uintptr_t>(in.size[lane], 1);
    for (std::uintptr_t w = a >> kWordShift; w <= (a + size - 1) >> kWordShift; ++w) words.push_back(w);
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::array<unsigned, kBanks> per_bank{};
  banks = 0;
  for (const std::uintptr_t w : words) {
    ++per_bank[w % kBanks];
    banks |= 1u << (w % kBanks);
  }
  return *std::max_element(per_bank.begin(), per_bank.end());
}

/// Shared memory: {wavefronts, wavefronts without bank conflicts}, as an H100 counts them
/// (measured with Nsight Compute, docs/explain.md). A warp's request is served in phases: the whole
/// warp for 4-byte accesses, each half-warp for 8-byte ones, each quarter-warp for 16-byte ones;
/// a phase takes as many wavefronts as the most distinct words one bank holds. Two phases merge
/// into one wavefront (the two halves for 8 bytes, the quarters of each half for 16 bytes) where
/// neither has a conflict and they use different banks, or where all their lanes read one address.
/// Without conflicts, each phase that did not merge takes one wavefront.
std::pair<unsigned, unsigned> shared_cost(const Instance& in, std::vector<std::uintptr_t>& words) {
  unsigned width = 0;
  for (std::uint32_t m = in.mask; m != 0; m &= m - 1) {
    width = std::max<unsigned>(width, static_cast<unsigned>(in.size[std::countr_zero(m)]));
  }
  if (width <= 4) {
    std::uint32_t banks = 0;
    const unsigned wavefronts = phase_cost(in, ~0u, words, banks);
    return {wavefronts, wavefronts == 0 ? 0u : 1u};
  }
  // {lanes of a phase pair}: the warp's halves for 8 bytes; each half's quarters for 16.
  const bool quarters = width > 8;
  const std::array<std::array<std::uint32_t, 2>, 2> pairs =
      quarters ? std::array<std::array<std::uint32_t, 2>, 2>{{{0x000000ffu, 0x0000ff00u}, {0x00ff0000u, 0xff000000u}}}
               : std::array<std::array<std::uint32_t, 2>, 2>{{{0x0000ffffu, 0xffff0000u}, {0u, 0u}}};
  unsigned wavefronts = 0;
  unsigned ideal = 0;
  for (const auto& pair : pairs) {
    const std::uint32_t group = (pair[0] | pair[1]) & in.mask;
    if (group == 0) continue;
    // One address for every lane of the pair: one wavefront.
    const std::uintptr_t first = in.address[std::countr_zero(group)];
    bool one_address = true;
    for (std::uint32_t m = group; m != 0 && one_address; m &= m - 1)
      one_address = in.address[std::countr_zero(m)] == first;
    if (one_address) {
      ++wavefronts;
      ++ideal;
      continue;
    }
    std::array<unsigned, 2> cost{};
    std::array<std::uint32_t, 2> banks{};
    for (int p = 0; p < 2; ++p) cost[p] = phase_cost(in, pair[p], words, banks[p]);
    const unsigned active = (cost[0] > 0 ? 1u : 0u) + (cost[1] > 0 ? 1u : 0u);
    if (active == 2 && cost[0] == 1 && cost[1] == 1 && (banks[0] & banks[1]) == 0) {
      ++wavefronts;
      ++ideal;
    } else {
      wavefronts += cost[0] + cost[1];
      ideal += active;
    }
  }
  return {wavefronts, ideal};
}

/// Costs the complete requests of the launch's open sites and closes them: the block's barrier
/// interval that ends at `to_line` (0: the block's end).
void complete_requests(Launch& l, int to_line) {
  State& st = state();
  if (l.intervals.size() <= l.interval) l.intervals.resize(l.interval + 1);
  protocol::BarrierInterval& interval = l.intervals[l.interval];
  interval.from_line = l.interval_from;
  interval.to_line = to_line;
  for (Site* s : l.touched) {
    for (auto& list : s->warps) {
      for (const Instance& in : list) {
        const auto lanes = static_cast<unsigned>(std::popcount(in.mask));
        if (lanes == 0) continue;
        const auto [units, ideal] = s->shared ? shared_cost(in, st.scratch) : global_cost(in);
        Totals& t = s->totals;
        t.requests += l.weight;
        t.active_lanes += lanes * l.weight;
        t.lanes_costed += lanes;
        t.units += units * l.weight;
        t.ideal_units += ideal * l.weight;
        interval.requests += l.weight;
        interval.active_lanes += lanes * l.weight;
        t.consider(units, ideal, stride_of(in));
      }
      list.clear();
    }
    std::fill(s->executed.begin(), s->executed.end(), 0);
    s->touched = false;
  }
  l.touched.clear();
  l.pending = 0;
  std::fill(l.last_access.begin(), l.last_access.end(), LastAccess{});
  ++l.interval_serial;  // a barrier or a block's end: every value is loaded again
}

Site& site_for(Launch& l, std::uint64_t key, std::uintptr_t pc, bool write, bool atomic, unsigned size,
               const Place& place) {
  if (l.last != nullptr && l.last_key == key) return *l.last;
  auto [it, added] = l.index.try_emplace(key, l.sites.size());
  if (added) {
    auto s = std::make_unique<Site>();
    s->pc = pc;
    s->shared = place.shared;
    s->write = write;
    s->atomic = atomic;
    s->bytes = size;
    if (place.name != nullptr) s->target = *place.name;
    s->element = place.element;
    s->inner = place.inner;
    s->target_bytes = place.bytes;
    s->executed.assign(l.threads, 0);
    s->loaded.assign(l.threads, 0);
    s->loaded_interval.assign(l.threads, 0);
    s->loaded_after_stores.assign(l.threads, 0);
    s->warps.resize((l.threads + kWarp - 1) / kWarp);
    l.sites.push_back(std::move(s));
  }
  l.last = l.sites[it->second].get();
  l.last_key = key;
  return *l.last;
}

Kernel& kernel_named(const char* name) {
  State& st = state();
  for (Kernel& k : st.kernels) {
    if (k.profile.kernel == name) return k;
  }
  st.kernels.emplace_back();
  st.kernels.back().profile.kernel = name;
  return st.kernels.back();
}

}  // namespace

void launch_begin(const cudalab_sim_launch_desc& desc) {
  Launch& l = state().launch;
  l = Launch{};
  l.desc = &desc;
  l.threads = desc.block.x * desc.block.y * desc.block.z;
  l.last_access.assign(l.threads, LastAccess{});
  l.stores.assign(l.threads, 0);
  l.blocks = 1ull * desc.grid.x * desc.grid.y * desc.grid.z;
  if (!every_block && l.blocks > kMaxCountedBlocks) {
    l.stride = (l.blocks + kMaxCountedBlocks - 1) / kMaxCountedBlocks;
    // Not a divisor of the grid's rows: the sample then reaches every column of blocks.
    while (desc.grid.x > 1 && std::gcd(l.stride, static_cast<unsigned long long>(desc.grid.x)) != 1) ++l.stride;
  }
  const unsigned long long others = (l.blocks - 1 + l.stride - 1) / l.stride;  // counted blocks before the last
  l.others_weight = others == 0 ? 1.0 : static_cast<double>(l.blocks - 1) / static_cast<double>(others);
  counting = false;
}

void block_begin(unsigned long long linear) {
  Launch& l = state().launch;
  if (!l.touched.empty()) complete_requests(l, 0);
  ++l.interval_serial;
  std::fill(l.stores.begin(), l.stores.end(), 0);
  l.interval = 0;
  l.interval_from = 0;
  counting = linear % l.stride == 0 || linear + 1 == l.blocks;
  if (counting) ++l.counted;
  l.weight = linear + 1 == l.blocks ? 1.0 : l.others_weight;
}

void barrier(int line) {
  Launch& l = state().launch;
  if (!counting) return;
  if (!l.touched.empty()) complete_requests(l, line);
  ++l.interval_serial;
  l.interval = std::min(l.interval + 1, protocol::kMaxBarrierIntervals - 1);
  l.interval_from = line;
}

void access(std::uintptr_t a, unsigned size, bool write, bool atomic, std::uintptr_t pc, unsigned thread,
            const Place& place) {
  Launch& l = state().launch;
  if (thread >= l.threads || size == 0) return;
  const unsigned lane = thread % kWarp;
  LastAccess& last = l.last_access[thread];
  if (last.site != nullptr && !atomic && !last.site->atomic && last.site->write == write &&
      last.site->shared == place.shared && a == last.end && pc != last.pc &&
      (pc > last.pc ? pc - last.pc : last.pc - pc) < kVectorWindow) {
    // The next component of a vector access (kVectorWindow's comment).
    const std::uintptr_t total = last.end + size - last.begin;
    const std::uintptr_t chunk = total <= 8 ? 8 : kMaxVectorBytes;
    if (total <= kMaxVectorBytes && last.begin % chunk == 0) {
      if (last.reused) {
        last.end += size;
        last.pc = pc;
        return;
      }
      last.site->warps[thread / kWarp][last.k].size[lane] = static_cast<std::uint16_t>(total);
      last.site->bytes = std::max(last.site->bytes, static_cast<unsigned>(total));
      last.end += size;
      last.pc = pc;
      return;
    }
  }
  last = LastAccess{};
  const std::uint64_t key = (static_cast<std::uint64_t>(pc) << 1) | (place.shared ? 1u : 0u);
  Site& s = site_for(l, key, pc, write, atomic, size, place);
  if (write || atomic) {
    ++l.stores[thread];
  } else if (s.loaded[thread] == a + 1 && s.loaded_interval[thread] == l.interval_serial &&
             s.loaded_after_stores[thread] == l.stores[thread]) {
    // The thread loads what it loaded here before, with no store of its own and no barrier
    // between: nvcc keeps the value in a register (`p = p * x[i] + c[k]` in a loop reads x[i]
    // once), so the GPU makes no request for it.
    last = {&s, 0, a, a + size, pc, true};
    return;
  } else {
    s.loaded[thread] = a + 1;
    s.loaded_interval[thread] = l.interval_serial;
    s.loaded_after_stores[thread] = l.stores[thread];
  }
  ++s.totals.lanes_seen;
  const std::uint32_t k = s.executed[thread]++;
  auto& list = s.warps[thread / kWarp];
  if (k >= list.size()) {
    // A request the lists have no room for: left uncosted (and scaled for at the launch's end).
    if (k != list.size() || k >= kMaxInstancesPerWarp || l.pending >= kMaxPendingInstances) return;
    list.emplace_back();
    ++l.pending;
  }
  Instance& in = list[k];
  in.address[lane] = a;
  in.size[lane] = static_cast<std::uint16_t>(std::min<unsigned>(size, 0xffff));
  in.mask |= 1u << lane;
  s.bytes = std::max(s.bytes, size);
  last = {&s, k, a, a + size, pc};
  if (!s.touched) {
    s.touched = true;
    l.touched.push_back(&s);
  }
}

void launch_end() {
  State& st = state();
  Launch& l = st.launch;
  if (l.desc == nullptr) return;
  if (!l.touched.empty()) complete_requests(l, 0);
  Kernel& k = kernel_named(l.desc->name);
  // The intervals by their place in a block's run, added up over the kernel's launches.
  for (std::size_t i = 0; i < l.intervals.size(); ++i) {
    if (l.intervals[i].requests <= 0) continue;
    if (k.profile.intervals.size() <= i) k.profile.intervals.resize(i + 1);
    protocol::BarrierInterval& sum = k.profile.intervals[i];
    if (sum.requests <= 0) {
      sum.from_line = l.intervals[i].from_line;
      sum.to_line = l.intervals[i].to_line;
    }
    sum.requests += l.intervals[i].requests;
    sum.active_lanes += l.intervals[i].active_lanes;
  }
  ++k.profile.launches;
  k.profile.blocks += l.blocks;
  k.profile.counted_blocks += l.counted;
  // The blocks' weights made the counts the whole grid's already.
  for (const auto& s : l.sites) {
    const Totals& t = s->totals;
    if (t.lanes_costed == 0) continue;
    // Lane accesses beyond the request lists count as the costed ones did.
    const double factor = static_cast<double>(t.lanes_seen) / static_cast<double>(t.lanes_costed);
    auto [it, added] = k.sites.try_emplace((static_cast<std::uint64_t>(s->pc) << 1) | (s->shared ? 1u : 0u));
    AccessSite& out = it->second.first;
    Totals& sum = it->second.second;
    if (added) {
      out.kernel = l.desc->name;
      out.pc = module_offset(s->pc);
      out.space = s->shared ? protocol::MemorySpace::shared : protocol::MemorySpace::global;
      out.write = s->write;
      out.atomic = s->atomic;
      out.target = s->target;
      out.element_bytes = s->element;
      out.row_elements = s->inner;
      out.target_bytes = s->target_bytes;
    }
    out.bytes = std::max(out.bytes, s->bytes);
    sum.requests += t.requests * factor;
    sum.active_lanes += t.active_lanes * factor;
    sum.units += t.units * factor;
    sum.ideal_units += t.ideal_units * factor;
    if (t.have_worst) sum.consider(t.worst_units, t.worst_ideal, t.stride);
  }
  l = Launch{};
  counting = false;
}

protocol::AccessProfile take() {
  State& st = state();
  protocol::AccessProfile p;
  for (Kernel& k : st.kernels) {
    if (p.kernels.size() >= protocol::kMaxProfiledKernels) {
      p.truncated = true;
      break;
    }
    p.kernels.push_back(k.profile);
    for (auto& [key, entry] : k.sites) {
      if (p.sites.size() >= protocol::kMaxAccessSites) {
        p.truncated = true;
        break;
      }
      AccessSite s = entry.first;
      const Totals& t = entry.second;
      s.requests = t.requests;
      s.active_lanes = t.active_lanes;
      s.units = t.units;
      s.ideal_units = t.ideal_units;
      s.worst_units = t.worst_units;
      s.worst_ideal = t.worst_ideal;
      s.stride = t.stride;
      p.sites.push_back(std::move(s));
    }
  }
  st.kernels.clear();
  return p;
}

}  // namespace cudalab::sim::profile

// ---- the control API (sim/control.hpp) ----
namespace cudalab::sim::control {

void count_accesses(bool on, unsigned sm_count, bool every_block) {
  sim::profile::active = on;
  sim::profile::every_block = on && every_block;
  sim::profile::posed_sm_count = on ? sm_count : 0;
}

protocol::AccessProfile take_access_profile() { return sim::profile::take(); }

}  // namespace cudalab::sim::control
