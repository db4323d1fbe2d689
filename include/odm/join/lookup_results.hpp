#pragma once
// The targets a server-side join (`$lookup`, join/lookup.hpp) brought back with each result
// document, read by the same join code as the client-side form: each fetch step of the
// relations, taken in the order the join runs them (a step, then its nested steps: the
// order the pipeline numbered them), decodes its targets from its pool instead of sending
// a find. Everything else (gathering ids, Dangling policies, sharing targets, assigning
// them in each document's order with duplicates) is the client-side join itself, which is
// what makes both forms give the same results.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/error.hpp>
#include <odm/fields/ref.hpp>
#include <odm/join/gathered_ids.hpp>
#include <odm/model/id.hpp>

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace odm::detail {

/// One target document inside a result document the server sent (which outlives it).
struct RawView {
  const std::uint8_t* data = nullptr;
  std::uint32_t length = 0;
};

/// The `$lookup` results of every fetch step, by the step's number in the pipeline.
struct LookupResults {
  std::vector<std::vector<RawView>> pools;
  /// The collection each step reads, and where the results come from, for messages.
  std::vector<std::string> sources;
  std::size_t next = 0;
  /// What the names of the fields a result row carries start with (join/lookup.hpp): the
  /// root's copy, document_field(), and each step's matches, output_field(step).
  std::string prefix = "__odm_";

  std::string document_field() const;
  std::string output_field(std::size_t step) const;

  /// The next fetch step's pool (each step takes one, in the order the pipeline numbered them).
  std::size_t take();
};

/// What a fetch step does with a target that does not fit its model: throws, or reports it.
using ReportBad = std::function<void(SkippedDocument)>;

/// Whether a stored `_id` is, byte for byte, the id `{"": id}` its codec writes: only then
/// is the target certainly what the client form's `$in` of that encoding finds.
inline bool stored_as_encoded(const bson_iter_t& stored, const EncodedId& id) {
  Document holder;
  check_append(bson_append_iter(holder.get_mutable(), "", 0, &stored));
  return std::string_view(reinterpret_cast<const char*>(holder.data()), holder.size()) == id.bytes();
}

/// The typed parts of reading a pool, so that the loop over it is compiled once
/// (odm/join/lookup.cpp) rather than once per model and id type.
struct PoolReader {
  /// How many ids were gathered (the size of `seen`).
  std::size_t ids = 0;
  const void* gathered = nullptr;
  /// The slot of the target whose stored `_id` is `stored`, or GatheredIds::none; throws
  /// DecodeError when the `_id` is not the model's id type.
  std::uint32_t (*slot_of)(const void* gathered, const bson_iter_t& stored) = nullptr;
  /// Decodes a whole target whose `_id` did not decode, for its DecodeError.
  void (*refuse)(const bson_t* document) = nullptr;
  /// Where a target that fits goes.
  DecodeInto into;
};

/// pooled_targets without the types: reads pool `step` through `reader`.
void read_pool(const LookupResults& results, std::size_t step, const PoolReader& reader, const ReportBad& report,
               std::vector<char>& seen);

/// The targets of pool `step` whose ids `gathered` holds, each decoded once, as a find of
/// `{_id: {$in: gathered.ids}}` would have returned them. A target that does not fit its
/// model throws (no `report`) or is reported once and left out, as the client form does.
/// `seen` (one flag per gathered id) marks the ids the pool answered: a target decoded or
/// reported. An id of a user type (EncodedId) counts as answered only by a target whose
/// stored `_id` is its codec's encoding: another form of it (fields in another order, a
/// field the codec ignores) is what the client form's `$in` compares too, so that `$in`
/// decides (join.hpp, lookup_targets).
template <class Target, class Id>
std::vector<Target> pooled_targets(const LookupResults& results, std::size_t step, const GatheredIds<Id>& gathered,
                                   const ReportBad& report, std::vector<char>& seen) {
  std::vector<Target> found;
  PoolReader reader;
  reader.ids = gathered.ids.size();
  reader.gathered = &gathered;
  reader.slot_of = [](const void* all, const bson_iter_t& stored) -> std::uint32_t {
    const auto& gathered = *static_cast<const GatheredIds<Id>*>(all);
    id_type_t<Target> id{};
    codec<id_type_t<Target>>::decode(stored, id);
    const std::uint32_t slot = gathered.slot_of(reference_key(id));
    if constexpr (std::is_same_v<Id, EncodedId>) {
      if (slot != GatheredIds<Id>::none && !stored_as_encoded(stored, gathered.ids[slot])) return GatheredIds<Id>::none;
    }
    return slot;
  };
  reader.refuse = [](const bson_t* document) { (void)from_bson<Target>(document); };
  reader.into = decode_into(found);
  read_pool(results, step, reader, report, seen);
  return found;
}

}  // namespace odm::detail
