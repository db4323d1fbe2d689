// expect: odm: an odm::Money is a sub-document, which MongoDB orders field by field
// {$lt: ["$price", "$limit"]} compares currencies first: 5 USD would be below 7 EUR.
#include "models.hpp"

namespace cf {
struct Priced {
  std::int32_t id;
  odm::Money price;
  odm::Money limit;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::lt(odm::field(&cf::Priced::price), odm::field(&cf::Priced::limit));
#else
  (void)odm::agg::lt(odm::amount(odm::field(&cf::Priced::price)), odm::amount(odm::field(&cf::Priced::limit)));
#endif
}
