// call_runner: one runner process on one case's input sets (a bench, explain's counted run), judged.
#include <chrono>
#include <optional>
#include <utility>

#include "cudalab/detail/case_judge.hpp"
#include "cudalab/detail/runner_session.hpp"
#include "cudalab/exercise_check.hpp"

namespace cudalab {

/// call_runner, inside the sandbox `box` (sandbox.hpp).
namespace {

CaseResult call_runner_in(const RunnerSandbox& box, const RunnerCall& call, const SetViews& sets,
                          const ExpectedFn& expected, protocol::Reply* reply, ParentClock* clock) {
  const Task& task = call.task;
  const Case& c = call.c;
  auto since = [start = std::chrono::steady_clock::now()]() mutable {
    const auto now = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(now - std::exchange(start, now)).count();
  };
  const auto* bench = std::get_if<protocol::BenchRun>(&call.run);
  SharedBuffers shared(sets, bench != nullptr ? bench->witnesses.size() : 0);
  protocol::Spec spec = make_spec(call, sets, shared, std::vector<const Case*>(sets.size(), &c));
  spec.sandbox = box.spec();
  const double preparing_s = since();
  // A benchmark takes the GPU (before_run) at the runner's gate: once its process and context
  // exist, which costs the attempt timing now nothing. A check takes it before it starts.
  const bool gated = (call.before_run || call.at_gate) && bench != nullptr;
  if (gated) {
    spec.bench().gate = true;
    spec.bench().rounds = static_cast<bool>(call.at_gate);
  }
  std::function<char(int)> at_gate;
  if (call.at_gate) {
    at_gate = call.at_gate;
  } else if (gated) {
    at_gate = [&call](int) {
      call.before_run();
      return protocol::kGateGo;
    };
  }
  double waiting_s = 0;
  if (call.before_run && !gated) {
    call.before_run();
    waiting_s = since();
  }
  std::optional<std::chrono::steady_clock::time_point> replied_at;  // the reply's line; then it exits
  const RunnerProcess run = spawn_runner(
      box, call, spec, shared, clock, 1, [&] { replied_at = replied_at.value_or(std::chrono::steady_clock::now()); },
      at_gate);
  if (gated) waiting_s = run.p.gate_ms / 1000;
  const double running_s = since() - (gated ? waiting_s : 0);
  const double exiting_s =
      replied_at ? std::chrono::duration<double>(std::chrono::steady_clock::now() - *replied_at).count() : 0;
  if (call.after_run) call.after_run();
  // The reply comes from a process that ran student code: read it as untrusted input, once.
  const bool replied = !run.p.result.empty() && !run.p.result_overflow && run.p.status == ProcessResult::Status::exited;
  std::optional<protocol::Reply> result;
  std::optional<protocol::ProtocolError> unusable;
  if (replied) {
    try {
      std::vector<protocol::Reply> replies = protocol::parse_replies(run.p.result);
      if (replies.size() != 1) throw protocol::ProtocolError("malformed reply: more than one");
      result = std::move(replies.front());
    } catch (const protocol::ProtocolError& e) {
      unusable = e;
    }
  }
  if (call.time_split != nullptr) {
    call.time_split->push_back({"preparing", preparing_s});
    if (gated || call.before_run) call.time_split->push_back({"waiting for the GPU", waiting_s});
    double inside_s = 0;
    const std::vector<protocol::Phase> inside = result ? result->phases : std::vector<protocol::Phase>{};
    for (const auto& p : inside) inside_s += p.seconds;
    call.time_split->push_back({"process start", std::max(0.0, running_s - exiting_s - inside_s)});
    call.time_split->insert(call.time_split->end(), inside.begin(), inside.end());
    call.time_split->push_back({"process exit", exiting_s});
  }
  const auto judge = [&]() -> CaseResult {
    if (!replied) return ended_without_reply(box, call, run, c);
    if (unusable) return unusable_reply(run, c, *unusable);
    CaseResult r;
    r.c = c;
    const bool ok = take_reply(call, *result, r);
    add_printed(run, r);
    if (reply != nullptr) *reply = *result;
    if (!ok) return r;
    if (!judge_bounds(c, *sets.front(), *result, r)) return r;
    if (bench != nullptr && !judge_witnesses(task, c, *bench, *result, sets, shared, expected, r)) return r;
    // Every input set is judged: in a benchmark, each holds the result of its last timed call.
    for (std::size_t set = 0; set < sets.size(); ++set) {
      const std::vector<Buffer> after = shared.read(set, *sets[set]);
      judge_outputs(task, c, *sets[set], after, shared.inputs_now(set), expected(set), r);
      if (r.verdict != Verdict::passed) break;
    }
    return r;
  };
  CaseResult r = judge();
  if (call.time_split != nullptr) call.time_split->push_back({"judging", since()});
  return r;
}

}  // namespace

CaseResult call_runner(const RunnerCall& call, const SetViews& sets, const ExpectedFn& expected, protocol::Reply* reply,
                       ParentClock* clock) {
  std::optional<RunnerSandbox> box;
  make_box(call, box);
  CaseResult r = call_runner_in(*box, call, sets, expected, reply, clock);
  std::vector<std::string> named;
  name_blocked(named, r);
  if (auto left = box->clean_up()) r.hints.push_back(*left);
  return r;
}

}  // namespace cudalab
