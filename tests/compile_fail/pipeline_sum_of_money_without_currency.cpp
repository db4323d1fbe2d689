// expect: odm: a $sum or $avg of odm::Money would add amounts of different currencies
// MongoDB adds the amounts of a Money whatever their currency: a typed sum of a Money
// needs the group keyed by its currency (or agg::amount, stating one currency).
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct PerBuyerCurrency {
  std::string buyer;
  std::string currency;
};
struct Spent {
  std::string id;
  odm::Decimal spent;
};
struct SpentPerCurrency {
  PerBuyerCurrency id;
  odm::Decimal spent;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().group<Spent>(agg::by(odm::field(&cf::Sale::buyer)),
                                                  agg::sum<&Spent::spent>(odm::field(&cf::Sale::total)));
#else
  auto p = odm::pipeline<cf::Sale>().group<SpentPerCurrency>(
      agg::by(agg::key<&PerBuyerCurrency::buyer>(odm::field(&cf::Sale::buyer)),
              agg::key<&PerBuyerCurrency::currency>(agg::currency(odm::field(&cf::Sale::total)))),
      agg::sum<&SpentPerCurrency::spent>(odm::field(&cf::Sale::total)));
#endif
  return p.size() == 1 ? 0 : 1;
}
