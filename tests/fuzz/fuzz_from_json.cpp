// libFuzzer target: Extended JSON text in. Promises checked:
// - odm::from_json<T> and Document::from_json throw only odm::JsonError (not JSON, or
//   nesting libbson's reader refuses) or odm::DecodeError (JSON that does not fit T);
// - a Document from_json returns is valid BSON (Document::from_bytes accepts it), even
//   where libbson's reader writes a stale key;
// - what to_json prints of it reads back (or to_json refuses it with an EncodeError).

#include "fuzz_support.hpp"
#include "bson/hostile_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  odm::Document document;
  try {
    document = odm::Document::from_json(text);
  } catch (const odm::JsonError&) {
    return 0;
  }
  try {
    (void)odm::Document::from_bytes(document.bytes());
  } catch (const odm::DecodeError& e) {
    fuzz_support::broken(std::string("from_json made invalid BSON: ") + e.what());
  }
  (void)fuzz_support::decode_with_every_model(document.get());
  try {
    (void)document.to_json();
    (void)document.to_canonical_json();
  } catch (const odm::EncodeError&) {
    return 0;  // one of the documents Extended JSON cannot carry back (see Document::to_json)
  }
  // Query operators ($regex, $options, $type) print as they are, with no round trip promised.
  if (odm_hostile::has_query_operator_document(document.get())) return 0;
  if (const auto problem = odm_hostile::json_round_trip_problem(document)) fuzz_support::broken(*problem);
  return 0;
}
