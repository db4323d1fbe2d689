#pragma once
// Step 1 of a join: the distinct ids a result set's references hold, and for each
// reference the slot of its id.
//
// This is the only part of a join whose cost grows with the number of references rather
// than with the number of targets (10,000 books pointing at 100 publishers visit 10,000
// ids to fetch 100 documents), so it is a flat open-addressing table instead of a
// node-based map: no allocation per id, one hash per reference, and a stored 32-bit hash
// in each bucket so that a probe compares ids only when their hashes agree.

#include <odm/fields/ref.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

namespace odm::detail {

/// MurmurHash3's 64-bit finalizer: every input bit affects every output bit, so the low
/// bits that pick a bucket are as good as the high ones.
constexpr std::uint64_t avalanche(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline std::uint64_t load_word64(const char* at) noexcept {
  std::uint64_t word;
  std::memcpy(&word, at, 8);
  return word;
}
inline std::uint64_t load_word32(const char* at) noexcept {
  std::uint32_t word;
  std::memcpy(&word, at, 4);
  return word;
}

/// A hash of `size` bytes, read eight at a time (the last word overlapping the one before
/// it) instead of byte by byte as std::hash<std::string> does. Ids are short: a string
/// key of a few words, or an ObjectId's 12 bytes.
inline std::uint64_t hash_bytes(const char* bytes, std::size_t size) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ size;
  std::uint64_t last;
  if (size >= 8) {
    const char* const final_word = bytes + size - 8;  // may overlap the word before it
    for (const char* at = bytes; at < final_word; at += 8)
      h = std::rotl(h ^ load_word64(at) * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
    last = load_word64(final_word);
  } else if (size >= 4) {
    last = load_word32(bytes) | load_word32(bytes + size - 4) << 32;
  } else if (size > 0) {
    const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(bytes[i])}; };
    last = byte(0) | byte(size / 2) << 8 | byte(size - 1) << 16;
  } else {
    last = 0;
  }
  return avalanche(h ^ last * 0x87c37b91114253d5ULL);
}

/// Whether `size` bytes at `a` and `b` are equal; inline, where memcmp is a call that
/// costs more than comparing a short id does.
inline bool same_bytes(const char* a, const char* b, std::size_t size) noexcept {
  if (size >= 8) {
    for (std::size_t at = 0; at + 8 < size; at += 8)
      if (load_word64(a + at) != load_word64(b + at)) return false;
    return load_word64(a + size - 8) == load_word64(b + size - 8);
  }
  if (size >= 4)
    return load_word32(a) == load_word32(b) && load_word32(a + size - 4) == load_word32(b + size - 4);
  for (std::size_t i = 0; i < size; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// The hash of each kind of id a model may have (model/id.hpp); a user type's by its BSON.
inline std::uint64_t hash_id(const std::string& id) noexcept { return hash_bytes(id.data(), id.size()); }
inline std::uint64_t hash_id(const ObjectId& id) noexcept {
  return hash_bytes(reinterpret_cast<const char*>(id.bytes().data()), id.bytes().size());
}
inline std::uint64_t hash_id(std::int64_t id) noexcept { return avalanche(static_cast<std::uint64_t>(id)); }
inline std::uint64_t hash_id(std::int32_t id) noexcept { return hash_id(std::int64_t{id}); }
inline std::uint64_t hash_id(std::monostate) noexcept { return 0; }
inline std::uint64_t hash_id(const EncodedId& id) noexcept { return hash_bytes(id.bytes().data(), id.bytes().size()); }
/// Ids of different types may hash alike; they never compare equal. In odm/join/join.cpp.
std::uint64_t hash_id(const ReferenceId& id) noexcept;

template <class Id>
bool same_id(const Id& a, const Id& b) noexcept {
  return a == b;
}
inline bool same_id(const std::string& a, const std::string& b) noexcept {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

/// For the standard unordered containers of ids (trees).
struct ReferenceIdHash {
  std::size_t operator()(const ReferenceId& id) const noexcept { return static_cast<std::size_t>(hash_id(id)); }
};

/// The distinct ids of a set of references, in first-seen order, and for each reference
/// (in the order they were added) the slot of its id: its position in `ids`. `Id` is the
/// referenced model's id type, so that hashing and comparing need no visit of a variant.
template <class Id>
class GatheredIds {
 public:
  /// Every distinct id, in first-seen order; its position is its slot.
  std::vector<Id> ids;
  /// The slot of each reference's id, in the order the references were added.
  std::vector<std::uint32_t> slots;

  static constexpr std::uint32_t none = 0xFFFFFFFFu;

  /// Room for `references` references without growing `slots`. The table itself grows
  /// with the distinct ids, which are usually far fewer than the references.
  void reserve(std::size_t references) { slots.reserve(references); }

  /// Records a reference to `id`: a new slot for an id not seen before.
  void add(const Id& id) {
    const std::uint32_t hash = short_hash(id);
    const std::uint32_t found = find(id, hash);
    slots.push_back(found != none ? found : add_new(id, hash));
  }

  /// The slot of `id`, or `none` for an id no reference holds.
  std::uint32_t slot_of(const Id& id) const { return find(id, short_hash(id)); }

 private:
  struct Bucket {
    std::uint32_t hash = 0;
    std::uint32_t slot = none;
  };

  static std::uint32_t short_hash(const Id& id) noexcept {
    const std::uint64_t h = hash_id(id);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

  std::uint32_t find(const Id& id, std::uint32_t hash) const {
    if (buckets_.empty()) return none;
    const std::size_t mask = buckets_.size() - 1;
    for (std::size_t at = hash & mask; buckets_[at].slot != none; at = (at + 1) & mask)
      if (buckets_[at].hash == hash && same_id(ids[buckets_[at].slot], id)) return buckets_[at].slot;
    return none;
  }

  /// A new id's slot, after growing the table if it would be more than half full (which
  /// keeps probe runs short). Out of line: most references repeat an id already seen.
  [[gnu::noinline]] std::uint32_t add_new(const Id& id, std::uint32_t hash) {
    if (ids.size() >= none) throw DataError("a join cannot gather more than 2^32 - 1 distinct ids");
    if (2 * (ids.size() + 1) > buckets_.size()) grow();
    const auto slot = static_cast<std::uint32_t>(ids.size());
    place(Bucket{hash, slot});
    ids.push_back(id);
    return slot;
  }

  void place(Bucket bucket) {
    const std::size_t mask = buckets_.size() - 1;
    std::size_t at = bucket.hash & mask;
    while (buckets_[at].slot != none) at = (at + 1) & mask;
    buckets_[at] = bucket;
  }

  /// Doubles the table (16 buckets at first), placing each id again by its stored hash.
  void grow() {
    std::vector<Bucket> old = std::move(buckets_);
    buckets_.assign(old.empty() ? 16 : 2 * old.size(), Bucket{});
    for (const Bucket& bucket : old)
      if (bucket.slot != none) place(bucket);
  }

  std::vector<Bucket> buckets_;
};

}  // namespace odm::detail
