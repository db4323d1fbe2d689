// odm::Subset's codec: the embedded items without their ParentRefs, read and written back
// whatever their number.

#include "test_support.hpp"

#include <cstdint>
#include <string>

namespace subset_codec {

struct Product;

struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<Product> product_id;
  std::string text;
  std::int64_t published = 0;
  struct odm_model {
    static constexpr auto key = &Review::review_id;
  };
};

struct Product {
  std::int32_t id = 0;
  odm::Subset<Review, 2, &Review::published> reviews;
};

TEST(SubsetCodec, EmbeddedItemsLeaveOutTheirReferenceToTheOwner) {
  const Product product{1, {Review{7, 1, "good", 20}, Review{6, 1, "fine", 10}}};
  EXPECT_EQ(odm_test::encoded(product),
            odm_test::canonical(R"({"_id": 1, "reviews": [
                {"review_id": 7, "text": "good", "published": {"$numberLong": "20"}},
                {"review_id": 6, "text": "fine", "published": {"$numberLong": "10"}}]})"));
}

// Regression: a stored array longer than N (another writer's N was larger) was read but
// refused on write, so the document could not be saved back.
TEST(SubsetCodec, AnArrayLongerThanNIsReadAndWrittenBackUnchanged) {
  const char* stored = R"({"_id": 1, "reviews": [
      {"review_id": 3, "text": "c", "published": {"$numberLong": "3"}},
      {"review_id": 2, "text": "b", "published": {"$numberLong": "2"}},
      {"review_id": 1, "text": "a", "published": {"$numberLong": "1"}}]})";
  const Product product = odm_test::decode<Product>(stored);
  EXPECT_EQ(product.reviews.size(), 3u);
  EXPECT_EQ(odm::to_bson(product).to_canonical_json(), odm_test::canonical(stored));
}

}  // namespace subset_codec
