// The non-virtual helpers of the exercise contract (task.hpp): element sizes, how a signature is
// spelled and mangled, case labels, buffer views and the shared uniform generator.
#include "cudalab/task.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <nettle/hmac.h>

namespace cudalab {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return sizeof(float);
    case DType::i32:
      return sizeof(std::int32_t);
  }
  throw std::invalid_argument("dtype_size: unknown DType");
}

namespace {

const char* spelling(DType t) { return t == DType::f32 ? "float" : "int"; }

/// Itanium builtin-type code: `f` for float, `i` for int.
char builtin_code(DType t) { return t == DType::f32 ? 'f' : 'i'; }

/// Itanium <seq-id>: the first substitution is `S_`, then `S0_`, `S1_`, ... in base 36 (0-9A-Z).
std::string substitution(std::size_t index) {
  if (index == 0) return "S_";
  std::size_t id = index - 1;
  std::string digits;
  do {
    const auto d = static_cast<int>(id % 36);
    digits.insert(digits.begin(), static_cast<char>(d < 10 ? '0' + d : 'A' + (d - 10)));
    id /= 36;
  } while (id != 0);
  return "S" + digits + "_";
}

}  // namespace

std::uint64_t derive_from_seed(std::uint64_t run_seed, std::string_view purpose) {
  // HMAC-SHA-256 with the seed as its key: a pseudo-random function, so that no number of derived
  // values (case seeds that inputs may reveal, the runner's thread-order seed) tells anything
  // about the key or about the values derived for other purposes.
  std::array<std::uint8_t, 8> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(run_seed >> (8 * i));
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), key.data());
  hmac_sha256_update(&ctx, purpose.size(), reinterpret_cast<const std::uint8_t*>(purpose.data()));
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
  hmac_sha256_digest(&ctx, digest.size(), digest.data());
  std::uint64_t out = 0;
  for (std::size_t i = 0; i < 8; ++i) out |= static_cast<std::uint64_t>(digest[i]) << (8 * i);
  return out;
}

std::uint64_t case_seed(std::uint64_t run_seed, const TaskInfo& info, const Case& c, std::size_t input_set) {
  std::string purpose = "case inputs;" + info.id;
  for (const Dim& d : c.dims) purpose += ";" + d.name + "=" + std::to_string(d.value);
  purpose += ";set=" + std::to_string(input_set);
  return derive_from_seed(run_seed, purpose);
}

std::string Signature::text() const {
  std::string out = "void solve(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (i != 0) out += ", ";
    if (p.kind == Param::Kind::scalar_int) {
      out += "int ";
    } else {
      if (p.is_const) out += "const ";
      out += spelling(p.dtype);
      out += "* ";
    }
    out += p.name;
  }
  return out + ")";
}

// Itanium C++ ABI, <mangled-name> ::= _Z <name> <bare-function-type>. Only the types these
// signatures use are needed: int, `T*` and `const T*` with T in {float, int}. Builtin types are
// never substitution candidates; `const T` (K T) and every pointer type (P ...) are, numbered in
// the order they are first written. A repeated candidate is written as its S<seq-id>_ reference.
std::string Signature::mangled_name() const {
  std::string out = "_Z5solve";
  if (params.empty()) return out + "v";  // void solve(): the parameter list is `void`
  std::vector<std::string> candidates;   // unsubstituted encodings, in order of appearance
  auto find = [&](const std::string& encoding) -> std::optional<std::size_t> {
    const auto it = std::find(candidates.begin(), candidates.end(), encoding);
    if (it == candidates.end()) return std::nullopt;
    return static_cast<std::size_t>(it - candidates.begin());
  };
  for (const Param& p : params) {
    if (p.kind == Param::Kind::scalar_int) {
      out += 'i';
      continue;
    }
    const std::string base(1, builtin_code(p.dtype));
    const std::string pointee = p.is_const ? "K" + base : base;
    const std::string pointer = "P" + pointee;
    if (const auto hit = find(pointer)) {  // the whole pointer type was seen before
      out += substitution(*hit);
      continue;
    }
    std::string written_pointee = pointee;
    if (p.is_const) {  // `const T` on its own is a candidate too (reached only through its pointer
                       // here)
      if (const auto hit = find(pointee)) {
        written_pointee = substitution(*hit);
      } else {
        candidates.push_back(pointee);
      }
    }
    out += "P" + written_pointee;
    candidates.push_back(pointer);
  }
  return out;
}

std::int64_t Case::dim(const std::string& name) const {
  for (const Dim& d : dims) {
    if (d.name == name) return d.value;
  }
  throw std::out_of_range("case " + label() + " has no dimension '" + name + "'");
}

std::string Case::label() const {
  std::string out;
  for (const Dim& d : dims) {
    if (!out.empty()) out += ' ';
    out += d.name + "=" + std::to_string(d.value);
  }
  if (precision == Precision::tf32) out += " TF32";
  return out;
}

Buffer Buffer::make(std::string name, DType dtype, Role role, std::size_t count) {
  Buffer b;
  b.name = std::move(name);
  b.dtype = dtype;
  b.role = role;
  b.bytes.assign(count * dtype_size(dtype), std::byte{0});
  return b;
}

namespace {

void require(const Buffer& b, DType t) {
  if (b.dtype != t) {
    throw std::logic_error("buffer '" + b.name + "' holds " + spelling(b.dtype) + ", not " + spelling(t));
  }
}

}  // namespace

// std::vector<std::byte> storage comes from operator new, aligned for any scalar type, so viewing
// it as float or int32 is well aligned.
// The elements are read in place, as floats or ints, from the bytes' storage. That storage comes
// from std::allocator (operator new), which implicitly creates objects of implicit-lifetime types
// in it as needed (C++20 [intro.object]/10), so a float or int array lives there to be accessed;
// and operator new aligns it for any fundamental type.
std::span<float> Buffer::f32() {
  require(*this, DType::f32);
  return {reinterpret_cast<float*>(bytes.data()), count()};
}

std::span<const float> Buffer::f32() const {
  require(*this, DType::f32);
  return {reinterpret_cast<const float*>(bytes.data()), count()};
}

std::span<std::int32_t> Buffer::i32() {
  require(*this, DType::i32);
  return {reinterpret_cast<std::int32_t*>(bytes.data()), count()};
}

std::span<const std::int32_t> Buffer::i32() const {
  require(*this, DType::i32);
  return {reinterpret_cast<const std::int32_t*>(bytes.data()), count()};
}

double Buffer::value(std::size_t i) const {
  if (i >= count()) {
    throw std::out_of_range("buffer '" + name + "': element " + std::to_string(i) + " of " + std::to_string(count()));
  }
  if (dtype == DType::f32) return f32()[i];
  return i32()[i];
}

// Built from raw 64-bit draws rather than std::uniform_real_distribution, whose algorithm differs
// between standard libraries: the same --seed must give the same inputs everywhere. 24 random bits
// make every value k·2^-24 of the way from lo to hi, exactly representable steps for [0, 1).
void fill_uniform(std::span<float> out, float lo, float hi, Rng& rng) {
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  for (float& v : out) {
    const double unit = static_cast<double>(rng() >> 40) * 0x1p-24;  // [0, 1)
    auto x = static_cast<float>(static_cast<double>(lo) + width * unit);
    if (x >= hi) x = std::nextafter(hi, lo);  // rounding to float may land on hi
    v = x;
  }
}

}  // namespace cudalab
