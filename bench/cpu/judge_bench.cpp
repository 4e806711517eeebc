// What judging one output costs the parent: compare_output over the largest GPU case of an
// exercise (67 million elements for the 1D ones), the right answer in the output. A check judges
// it once and a timed run up to four times, for every attempt a grader runs.
//
//   cudalab-bench-judge [--benchmark_filter=02_vector_add]
//
// Names are "<exercise>/real_time"; items_per_second is elements judged per second.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/case_data.hpp"
#include "cudalab/judge.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/task.hpp"

namespace {

using cudalab::Buffer;
using cudalab::DType;

/// One exercise's largest case: its data and the outputs holding the expected values.
struct Judged {
  std::shared_ptr<const cudalab::CaseData> data;
  std::vector<Buffer> right;
};

const Judged& judged(const std::string& id) {
  static std::map<std::string, Judged> made;
  auto it = made.find(id);
  if (it != made.end()) return it->second;
  const cudalab::Task& task = *cudalab::find_task(id);
  const cudalab::Case c = task.cases(cudalab::CaseOptions{.simulator = false}).back();
  Judged j{cudalab::make_case_data(task, c, 12345), {}};
  j.right = j.data->buffers;
  for (const cudalab::Expected& e : j.data->expected.get()) {
    Buffer& b = j.right.at(e.buffer);
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      if (b.dtype == DType::f32) {
        b.f32()[i] = static_cast<float>(e.value[i]);
      } else {
        b.i32()[i] = static_cast<std::int32_t>(e.value[i]);
      }
    }
  }
  return made.emplace(id, std::move(j)).first->second;
}

void judge_output(benchmark::State& state, const std::string& id) {
  const Judged& j = judged(id);
  const auto& expected = j.data->expected.get();
  std::size_t elements = 0;
  for (auto _ : state) {
    for (const cudalab::Expected& e : expected) {
      const Buffer& out = j.right.at(e.buffer);
      const Buffer* before = out.role == cudalab::Role::inout ? &j.data->buffers.at(e.buffer) : nullptr;
      const auto cmp = cudalab::compare_output(out, e, before, false);
      if (cmp.wrong != 0) state.SkipWithError("the expected values were judged wrong");
      elements += cmp.count;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(elements));
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* id : {"01_increment", "02_vector_add", "04_normalize", "12_softmax"}) {
    benchmark::RegisterBenchmark(id, [id](benchmark::State& s) { judge_output(s, id); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
