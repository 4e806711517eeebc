// The parent <-> runner protocol: both sides' one JSON mapping round-trips, and a reply that does
// not follow it (as a submission writing to the reply pipe would produce) is refused with a
// one-line reason instead of an exception that ends the run.
#include <gtest/gtest.h>

#include <tuple>

#include <nlohmann/json.hpp>

#include "cudalab/protocol.hpp"

namespace cudalab::protocol {
namespace {

using nlohmann::json;

Reply sample_reply() {
  Reply r;
  r.status = Status::cuda_error;
  r.message = "invalid argument";
  r.cuda_error = "cudaErrorInvalidValue";
  r.solve_ms = 1.5;
  r.launches_recorded = true;
  r.records.allocations.push_back({"cudaMallocManaged", MemoryKind::managed, 4000, false, 0x1000});
  r.records.copies.push_back(
      {"cudaMemcpy2D", CopyKind::host_to_device, 64, "", "a", 0x1, 0x2, 0, "", "", false, false});
  r.records.copies.push_back({"cudaMemcpy", CopyKind::device_to_host, 8, "", "", 0x3, 0x4, 0, "", "x", true, false});
  Launch l;
  l.kernel = "tiled";
  l.grid = {4, 2, 1};
  l.block = {16, 16, 1};
  l.static_shared_bytes = 2048;
  r.records.launches.push_back(l);
  r.records.first_failed_call = FailedCall{"cudaMemcpy(...)", "cudaErrorInvalidValue", "the destination comes first"};
  r.samples_s = {0.001, 0.002};
  r.stop = StopReason::noise_target_met;
  r.host_memory = HostMemory::page_locked;
  r.phases = {{"context", 0.25}, {"timed calls", 0.5}};
  r.out_of_bounds = {{"y", false, 0, 95, 96}};
  return r;
}

TEST(Protocol, EveryStatusRoundTripsByItsName) {
  // A skeleton's "not implemented yet" travels as a status, not as a message to be searched.
  for (Status status : {Status::ok, Status::load_error, Status::missing_symbol, Status::exception,
                        Status::not_implemented, Status::cuda_error, Status::no_device, Status::runner_error}) {
    Reply r;
    r.status = status;
    const json j = json::parse(dump_reply(r));
    EXPECT_EQ(j["status"], status_name(status));
    EXPECT_EQ(parse_reply(j.dump()).status, status) << status_name(status);
  }
  EXPECT_STREQ(status_name(Status::not_implemented), "not_implemented");
}

TEST(Protocol, ReplyRoundTripsThroughTheOneMapping) {
  const Reply back = parse_reply(dump_reply(sample_reply()));
  EXPECT_EQ(back.status, Status::cuda_error);
  EXPECT_EQ(back.cuda_error, "cudaErrorInvalidValue");
  EXPECT_DOUBLE_EQ(back.solve_ms, 1.5);
  ASSERT_EQ(back.records.allocations.size(), 1u);
  EXPECT_EQ(back.records.allocations[0].kind, MemoryKind::managed);
  EXPECT_EQ(back.records.allocations[0].api, "cudaMallocManaged");
  ASSERT_EQ(back.records.copies.size(), 2u);
  EXPECT_EQ(back.records.copies[0].kind, CopyKind::host_to_device);
  EXPECT_EQ(back.records.copies[0].from_host_buffer, "a");
  EXPECT_EQ(back.records.copies[0].dst, 0u) << "addresses stay in the runner";
  // Which harness buffer a copy reads, and whether its other end is the host's (the judge's "the
  // work must be done by kernels").
  EXPECT_EQ(back.records.copies[1].from_device_buffer, "x");
  EXPECT_TRUE(back.records.copies[1].to_host_memory);
  EXPECT_FALSE(back.records.copies[1].from_host_memory);
  ASSERT_EQ(back.records.launches.size(), 1u);
  EXPECT_EQ(back.records.launches[0].grid, (std::array<unsigned, 3>{4, 2, 1}));
  ASSERT_TRUE(back.records.first_failed_call);
  EXPECT_EQ(back.records.first_failed_call->cause, "the destination comes first");
  EXPECT_EQ(back.stop, StopReason::noise_target_met);
  ASSERT_TRUE(back.host_memory);
  EXPECT_EQ(*back.host_memory, HostMemory::page_locked);
  ASSERT_EQ(back.phases.size(), 2u);
  EXPECT_EQ(back.phases[1].name, "timed calls");
  EXPECT_DOUBLE_EQ(back.phases[1].seconds, 0.5);
  ASSERT_EQ(back.out_of_bounds.size(), 1u);
  EXPECT_EQ(back.out_of_bounds[0].buffer, "y");
  EXPECT_FALSE(back.out_of_bounds[0].before);
  EXPECT_EQ(back.out_of_bounds[0].last, 95u);
  EXPECT_EQ(back.out_of_bounds[0].changed, 96u);
}

// A guard zone's report comes from a process that ran student code: a range that cannot be is refused.
TEST(Protocol, AnOutOfBoundsRangeThatCannotBeIsRefused) {
  Reply r = sample_reply();
  r.out_of_bounds = {{"y", false, 10, 5, 1}};  // first after last
  EXPECT_THROW((void)parse_reply(dump_reply(r)), ProtocolError);
  r.out_of_bounds = {{"y", false, 0, 3, 5}};  // more bytes changed than the range holds
  EXPECT_THROW((void)parse_reply(dump_reply(r)), ProtocolError);
  r.out_of_bounds.assign(kMaxOutOfBounds + 1, {"y", true, 0, 0, 1});
  EXPECT_THROW((void)parse_reply(dump_reply(r)), ProtocolError);
}

TEST(Protocol, ACheckHasOneReplyLinePerCaseInOrder) {
  Reply first = sample_reply();
  Reply second = sample_reply();
  second.set = 1;
  second.message = "the second case";
  const std::vector<Reply> back = parse_replies(dump_reply(first) + "\n" + dump_reply(second) + "\n");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].set, 1u);
  EXPECT_EQ(back[1].message, "the second case");
  EXPECT_EQ(dump_reply(first).find('\n'), std::string::npos) << "a reply must stay on one line";
  // A line the submission wrote itself for a case that is not next is refused.
  EXPECT_THROW((void)parse_replies(dump_reply(second) + "\n"), ProtocolError);
  EXPECT_THROW((void)parse_replies(dump_reply(first) + "\n" + dump_reply(first) + "\n"), ProtocolError);
}

TEST(Protocol, SpecRoundTripsAndIsValidated) {
  Spec s;
  s.module = "/tmp/m.so";
  s.symbol = "_Z5solvePii";
  s.total_bytes = 512;
  s.sets = {{{"data", 0, 256, BufferRole::inout}}, {{"data", 256, 256, BufferRole::inout}}};
  s.args = {{{0, 0}, {std::nullopt, 64}}, {{0, 0}, {std::nullopt, 64}}};
  BenchRun bench;
  bench.policy.time_cap_s = 3;
  bench.host_memory = HostMemory::pageable;
  s.run = bench;
  const Spec back = parse_spec(dump_spec(s));
  ASSERT_TRUE(back.is_bench());
  ASSERT_EQ(back.sets.size(), 2u);
  EXPECT_EQ(back.sets[1][0].offset, 256u);
  EXPECT_EQ(back.sets[1][0].role, BufferRole::inout);
  ASSERT_EQ(back.args.size(), 2u);
  ASSERT_EQ(back.args[1].size(), 2u);
  EXPECT_EQ(back.args[1][0].buffer, 0u);
  EXPECT_EQ(back.args[1][1].value, 64);
  EXPECT_DOUBLE_EQ(back.bench().policy.time_cap_s, 3);
  EXPECT_EQ(back.bench().host_memory, HostMemory::pageable);
  // One argument list per set, or none at all.
  Spec short_args = s;
  short_args.args.pop_back();
  EXPECT_THROW((void)parse_spec(dump_spec(short_args)), ProtocolError);
  // Rounds (paired timing) come back to the gate: a bench without one could not take turns.
  Spec rounds = s;
  rounds.bench().rounds = true;
  EXPECT_THROW((void)parse_spec(dump_spec(rounds)), ProtocolError);
  rounds.bench().gate = true;
  EXPECT_TRUE(parse_spec(dump_spec(rounds)).bench().rounds);
  // A buffer outside the shared file is refused before anything is mapped.
  Spec outside = s;
  outside.sets[1][0].bytes = 4096;
  EXPECT_THROW((void)parse_spec(dump_spec(outside)), ProtocolError);

  // A check run keeps its own fields, and only those.
  CheckRun check;
  check.instrumentation = Instrumentation::access_counts;
  check.instrumented_sets = {true, false};
  check.orders = {ThreadOrder::reverse, ThreadOrder::shuffled};
  check.order_seed = 7;
  check.counts_sm_count = 132;
  s.run = check;
  const Spec checked = parse_spec(dump_spec(s));
  ASSERT_FALSE(checked.is_bench());
  EXPECT_EQ(checked.check().instrumentation, Instrumentation::access_counts);
  EXPECT_TRUE(checked.check().instrumented(0));
  EXPECT_FALSE(checked.check().instrumented(1));
  EXPECT_EQ(checked.check().orders, check.orders);
  EXPECT_EQ(checked.check().order_seed, 7u);
  EXPECT_EQ(checked.check().counts_sm_count, 132u);
  EXPECT_THROW((void)checked.bench(), std::bad_variant_access);
  const auto wire = nlohmann::json::parse(dump_spec(s));
  EXPECT_FALSE(wire.contains("bench"));
  EXPECT_FALSE(wire["check"].contains("witnesses"));
  // One flag per set; a plain run instruments nothing.
  s.check().instrumented_sets = {true};
  EXPECT_THROW((void)parse_spec(dump_spec(s)), ProtocolError);
  s.check() = CheckRun{};
  EXPECT_FALSE(parse_spec(dump_spec(s)).check().instrumented(0));
  // Exactly one run: neither, or both, is refused.
  nlohmann::json both = nlohmann::json::parse(dump_spec(s));
  both["bench"] = nlohmann::json::parse(dump_spec(back))["bench"];
  EXPECT_THROW((void)parse_spec(both.dump()), ProtocolError);
  both.erase("bench");
  both.erase("check");
  EXPECT_THROW((void)parse_spec(both.dump()), ProtocolError);
}

/// parse_reply's one-line reason for `text`, or "" when it parses.
std::string refusal(const std::string& text) {
  try {
    (void)parse_reply(text);
    return "";
  } catch (const ProtocolError& e) {
    return e.what();
  }
}

TEST(Protocol, MalformedRepliesAreRefusedWithAReason) {
  // The row of the issue: a submission's own reply with a string where a time belongs.
  EXPECT_NE(refusal(R"({"status":"ok","solve_ms":"fast"})").find("malformed reply"), std::string::npos);
  json good = sample_reply();
  json j = good;
  j["solve_ms"] = "fast";
  EXPECT_NE(refusal(j.dump()).find("field 'solve_ms' is not a number"), std::string::npos) << refusal(j.dump());
  j = good;
  j["status"] = "great";
  EXPECT_NE(refusal(j.dump()).find("field 'status' has an unknown value"), std::string::npos);
  j = good;
  j["solve_ms"] = -1;
  EXPECT_NE(refusal(j.dump()).find("out of range"), std::string::npos);
  j = good;
  j["records"]["launches"][0]["grid"] = json::array({1, 2});
  EXPECT_NE(refusal(j.dump()).find("'grid' is not 3 numbers"), std::string::npos);
  j = good;
  j["records"]["allocations"][0]["bytes"] = -5;
  EXPECT_NE(refusal(j.dump()).find("'bytes' is not a count"), std::string::npos);
  // Phases are shown in logs: a few short names with times, nothing else.
  j = good;
  j["phases"] = json::array({json::array({"context", -1})});
  EXPECT_NE(refusal(j.dump()).find("out of range"), std::string::npos) << refusal(j.dump());
  j["phases"] = json::array({json::array({std::string(kMaxPhaseNameBytes + 1, 'x'), 1})});
  EXPECT_NE(refusal(j.dump()).find("not a [name, seconds] pair"), std::string::npos) << refusal(j.dump());
  j["phases"] = json::array();
  for (std::size_t i = 0; i <= kMaxPhases; ++i) j["phases"].push_back(json::array({"p", 1}));
  EXPECT_NE(refusal(j.dump()).find("not a short list"), std::string::npos) << refusal(j.dump());
  // Rounds split the samples, each round at least one: the parent takes a median of each.
  j = good;
  j["samples_s"] = json::array({1e-3, 1e-3, 2e-3});
  j["round_ends"] = json::array({1, 3});
  EXPECT_EQ(refusal(j.dump()), "");
  for (const json& ends : {json::array({1, 1}), json::array({2, 4}), json::array({0})}) {
    j["round_ends"] = ends;
    EXPECT_NE(refusal(j.dump()).find("'round_ends' does not split"), std::string::npos) << ends.dump();
  }
  EXPECT_NE(refusal("{\"status\":").find("malformed reply"), std::string::npos);
  EXPECT_NE(refusal("[]").find("malformed reply"), std::string::npos);
  EXPECT_NE(refusal(std::string(kMaxReplyBytes + 1, ' ')).find("longer than the protocol allows"), std::string::npos);
  EXPECT_EQ(refusal(good.dump()), "");
}

TEST(Protocol, ATraceRoundTripsAndEveryIndexIsChecked) {
  Reply r;
  r.status = Status::ok;
  r.trace.launches.push_back({"k", {2, 1, 1}, {4, 1, 1}, {12}});
  r.trace.targets.push_back({"A", false, 4, 8, 0});
  r.trace.targets.push_back({"tile", true, 4, 16, 4});
  r.trace.accesses.push_back({0, 1, 3, 1, 1, 15, TraceKind::write, 0x40, 0x3f800000});
  r.trace.accesses.push_back({0, 0, 2, 0, 0, -1, TraceKind::read, 0x44, 0});
  const Reply back = parse_reply(dump_reply(r));
  ASSERT_EQ(back.trace.accesses.size(), 2u);
  EXPECT_EQ(back.trace.launches.at(0).barrier_lines, std::vector<int>{12});
  EXPECT_EQ(back.trace.targets.at(1).row_elements, 4u);
  const TraceAccess& a = back.trace.accesses.at(0);
  EXPECT_EQ(std::tie(a.block, a.thread, a.phase, a.target, a.element, a.pc, a.bits),
            std::make_tuple(1u, 3u, 1u, 1u, std::int64_t{15}, std::uint64_t{0x40}, 0x3f800000u));
  EXPECT_EQ(a.kind, TraceKind::write);
  EXPECT_EQ(back.trace.accesses.at(1).element, -1) << "an access before the start stays negative";
  // The runner is untrusted: an index past its list, a block or thread past the launch, is refused.
  for (const auto& [field, value] : std::vector<std::pair<std::size_t, int>>{{0, 1}, {1, 2}, {2, 4}, {4, 2}, {6, 3}}) {
    json j = json::parse(dump_reply(r));
    j["trace"]["accesses"][0][field] = value;
    EXPECT_THROW((void)parse_reply(j.dump()), ProtocolError) << "field " << field << " = " << value;
  }
  json j = json::parse(dump_reply(r));
  j["trace"]["launches"][0]["block"] = json::array({0, 1, 1});
  EXPECT_THROW((void)parse_reply(j.dump()), ProtocolError) << "an extent of 0";
}

TEST(Protocol, ATraceIsAskedOnlyWithAccessChecks) {
  Spec s;
  s.module = "/m.so";
  s.symbol = "_Z5solvePfi";
  s.sets = {{}};
  s.args = {{}};
  CheckRun run;
  run.trace = true;
  s.run = run;
  EXPECT_THROW((void)parse_spec(json(s).dump()), ProtocolError);
  std::get<CheckRun>(s.run).instrumentation = Instrumentation::access_checks;
  EXPECT_NO_THROW((void)parse_spec(json(s).dump()));
}

}  // namespace
}  // namespace cudalab::protocol
