// libFuzzer target: odm::from_bson<T> on raw bytes, for models covering every member kind
// (tests/fuzz/fuzz_models.hpp). Promises checked:
// - malformed input of any kind is an odm::DecodeError: no crash, no other exception,
//   no undefined behaviour (the build runs under ASan and UBSan);
// - decoding refuses whatever Document::from_bytes refuses: a corrupt document is never
//   half-trusted, not even in fields the model does not declare;
// - what decodes encodes, and what odm encodes, it decodes.

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  bool valid = true;
  std::string why;
  try {
    (void)odm::Document::from_bytes(bytes);
  } catch (const odm::DecodeError& e) {
    valid = false;
    why = e.what();
  }
  bson_t view;
  if (size < 5 || !bson_init_static(&view, data, size)) {
    try {
      (void)odm::from_bson<fuzz_models::Sparse>(bytes);
      fuzz_support::broken("decoded bytes that are not a document");
    } catch (const odm::DecodeError&) {
    }
    return 0;
  }
  const int decoded = fuzz_support::decode_with_every_model(&view);
  if (!valid && decoded != 0)
    fuzz_support::broken("a model decoded a document from_bytes refuses (" + why + ")");
  return 0;
}
