// expect: odm: find_one_and_update/_replace/_delete return the collection's model, but this projection leaves out a member the model requires
// find_one_and_delete returns a cf::Order: a projection onto a struct without the order's
// required members would delete the document, then refuse what the server returned. The
// twin projects onto a struct that keeps every required member (the others may be absent).
#include "options_models.hpp"

#include <optional>

namespace cf {
struct OrderCustomer {
  std::string customer;
};
struct Note {
  std::int32_t id;
  std::string text;
  std::optional<std::string> author;
};
struct NoteText {
  std::int32_t id;
  std::string text;
};
}  // namespace cf

void take(odm::Collection<cf::Order>& orders, odm::Collection<cf::Note>& notes) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.find_one_and_delete(odm::field(&cf::Order::id) == 1, odm::FindOneAndDeleteOptions<cf::Order>{}.projection(
                                                                          odm::projection<cf::Order, cf::OrderCustomer>()));
  (void)notes;
#else
  (void)orders;
  (void)notes.find_one_and_delete(odm::field(&cf::Note::id) == 1,
                                  odm::FindOneAndDeleteOptions<cf::Note>{}.projection(odm::projection<cf::Note, cf::NoteText>()));
#endif
}

int main() { return 0; }
