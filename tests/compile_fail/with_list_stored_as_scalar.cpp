// expect: odm::with: the member holds no reference (odm::Ref, odm::ParentRef, odm::RefMany) and no embedded document
// A join looks through a member as its codec says it is stored (its kind): a list of
// references that its codec stores as one string holds nothing a join (or a $lookup path)
// can reach, though C++ could iterate it. The twin is the same list stored as an array.
#include "models.hpp"

namespace cf {
struct ProductList {
  std::vector<odm::Ref<Product>> refs;
  auto begin() { return refs.begin(); }
  auto end() { return refs.end(); }
};
struct Wishlist {
  std::int64_t id;
  ProductList products;
};
}  // namespace cf

template <>
struct odm::codec<cf::ProductList> {
#ifdef ODM_COMPILE_FAIL
  using kind = odm::kinds::scalar<BSON_TYPE_UTF8>;  // "1,2,3"
#else
  using kind = odm::kinds::array<odm::kind_of<odm::Ref<cf::Product>>>;
#endif
  static void encode(bson_t* parent, std::string_view key, const cf::ProductList&) {
    odm::codec<std::string>::encode(parent, key, "");
  }
  static void decode(const bson_iter_t&, cf::ProductList& out) { out.refs.clear(); }
};

int main() {
  auto relation = odm::with(&cf::Wishlist::products);
  (void)relation;
  return 0;
}
