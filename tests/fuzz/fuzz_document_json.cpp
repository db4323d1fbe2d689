// libFuzzer target: raw bytes -> Document::from_bytes -> to_json -> from_json. Promises
// checked:
// - from_bytes throws only odm::DecodeError;
// - to_json and to_canonical_json never throw on a document from_bytes accepted, except
//   an EncodeError for the documents Extended JSON cannot carry back (Document::to_json
//   lists them); libbson never fails to print what from_bytes accepted;
// - what they print reads back as the same document (relaxed: int64 values that fit
//   become int32, as relaxed Extended JSON specifies).

#include "fuzz_support.hpp"
#include "bson/hostile_support.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  odm::Document document;
  try {
    document = odm::Document::from_bytes(std::span<const std::uint8_t>(data, size));
  } catch (const odm::DecodeError&) {
    return 0;
  }
  for (const bool canonical : {false, true}) {
    try {
      (void)(canonical ? document.to_canonical_json() : document.to_json());
    } catch (const odm::EncodeError& e) {
      // libbson's own refusal ("cannot be written") would mean from_bytes let something through.
      if (e.reason() == "document cannot be written as Extended JSON")
        fuzz_support::broken(std::string("libbson cannot print what from_bytes accepted: ") + e.what());
      return 0;
    }
  }
  // Query operators ($regex, $options, $type) print as they are, with no round trip promised.
  if (odm_hostile::has_query_operator_document(document.get())) return 0;
  if (const auto problem = odm_hostile::json_round_trip_problem(document)) fuzz_support::broken(*problem);
  return 0;
}
