#include "cudalab/case_data.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

namespace cudalab {

void poison(Buffer& buffer) {
  if (buffer.dtype == DType::f32) {
    std::ranges::fill(buffer.f32(), std::bit_cast<float>(kPoisonF32Bits));
  } else {
    std::ranges::fill(buffer.i32(), kPoisonI32);
  }
}

bool is_poison(const Buffer& buffer, std::size_t i) {
  return buffer.dtype == DType::f32 ? is_poison_element(buffer.f32()[i]) : is_poison_element(buffer.i32()[i]);
}

std::shared_ptr<const CaseData> make_case_data(const Task& task, const Case& c, std::uint64_t case_seed) {
  auto data = std::make_shared<CaseData>();
  Rng rng(case_seed);
  data->buffers = task.make_buffers(c, rng);
  for (auto& b : data->buffers) {
    if (b.role == Role::output) poison(b);
  }
  // The reference reads the buffers the entry owns: they outlive the task.
  const std::vector<Buffer>* buffers = &data->buffers;
  data->expected = std::async(std::launch::async, [&task, c, buffers] { return task.reference(c, *buffers); });
  return data;
}

std::shared_ptr<const CaseData> CaseDataCache::get(const Task& task, const Case& c, std::uint64_t case_seed) {
  const std::string key = fmt::format("{}|{}|{}", task.info().id, c.label(), case_seed);
  std::promise<std::shared_ptr<const CaseData>> made;
  std::shared_future<std::shared_ptr<const CaseData>> entry;
  bool maker = false;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      entry = made.get_future().share();
      entries_.emplace(key, entry);
      maker = true;
    } else {
      entry = it->second;
    }
  }
  // Made outside the lock: other cases go on meanwhile; askers for this one wait for it.
  if (maker) {
    try {
      made.set_value(make_case_data(task, c, case_seed));
    } catch (...) {
      made.set_exception(std::current_exception());
    }
  }
  return entry.get();
}

std::shared_ptr<const CaseData> case_data(CaseDataCache* cache, const Task& task, const Case& c,
                                          std::uint64_t case_seed) {
  return cache != nullptr ? cache->get(task, c, case_seed) : make_case_data(task, c, case_seed);
}

}  // namespace cudalab
