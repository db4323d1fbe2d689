// The subset pattern, one-to-many (seeds 000 and 001): a product page shows the newest
// reviews, but a popular product has thousands. The product embeds the 10 newest
// (odm::Subset<Review, 10, &Review::published_date>); every review also lives in the
// `review` collection with `product_id`, where "show more" reads the older ones. The
// price is exact money: {value: NumberDecimal("119.99"), currency: "USD"}.
#include "example_support.hpp"

#include <odm/join/subset.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using Date = std::chrono::sys_days;

struct Product;

/// A review: in `review` with its product_id; embedded in the product without it.
struct Review {
  std::int32_t review_id;
  odm::ParentRef<Product> product_id;
  std::string review_author;
  std::string review_text;
  Date published_date;
  struct odm_model {
    static constexpr std::string_view collection = "review";
    static constexpr auto key = &Review::review_id;  // identifies a review in both places
  };
};

struct Product {
  std::int32_t id;
  std::string name;
  std::string description;
  odm::Money price;
  odm::Subset<Review, 10, &Review::published_date> reviews;  // the 10 newest, newest first
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

/// The product page without the reviews.
struct ProductHeader {
  std::int32_t id;
  std::string name;
  odm::Money price;
};

Review review(std::int32_t id, std::string author, std::string text, Date published) {
  return Review{id, {}, std::move(author), std::move(text), published};
}

}  // namespace

int main() {
  using example::check;
  using example::day;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto products = db.collection<Product>();
    auto reviews = db.collection<Review>();
    products.drop();
    reviews.drop();

    example::step("store the product, priced in exact decimal money");
    const Product widget{1, "Super Widget", "This is the most useful item in your toolbox.",
                         odm::Money("119.99", "USD"), {}};
    products.insert_one(widget);
    example::show("stored", widget);
    // The Subset implies {product_id: 1, published_date: -1, review_id: -1} on `review`.
    example::sync_indexes<Product, Review>(db);

    example::step("add the seed's four reviews and eight more, through odm::subset::add");
    // The seed's reviews ...
    std::vector<Review> added{
        review(786, "Kristina", "This is indeed an amazing widget.", day(2019, 2, 18)),
        review(785, "Trina", "Nice product. Slow shipping.", day(2019, 2, 17)),
        review(1, "Hans", "Meh, it's okay.", day(2017, 12, 6)),
        review(777, "Pablo", "Amazing!", day(2019, 2, 16)),
    };
    // ... and eight between Hans's and Pablo's (the seed elides "other reviews"), so that
    // the product has more than ten.
    for (std::int32_t i = 0; i < 8; ++i)
      added.push_back(review(700 + i, "Reader " + std::to_string(i + 1), "Review number " + std::to_string(i + 1) + ".",
                             day(2018, static_cast<unsigned>(i + 1), 15)));
    for (const Review& r : added) {
      // Each add: one insert into `review`, one atomic $push {$each, $sort, $slice: 10}, then a
      // check that the product embeds exactly the 10 newest of `review`.
      check(odm::subset::add(db, &Product::reviews, 1, r), "added review " + std::to_string(r.review_id));
    }

    example::step("the product page: one read, the 10 newest reviews embedded");
    const Product page = products.get_by_id(1);
    example::show("product", page);
    check(page.price == odm::Money("119.99", "USD") && page.price.amount().to_string() == "119.99",
          "the price reads back as exactly 119.99 USD");
    check(page.reviews.size() == 10, "the product embeds exactly 10 reviews");
    check(page.reviews[0].review_id == 786 && page.reviews[1].review_id == 785 && page.reviews[2].review_id == 777,
          "newest first: Kristina, Trina, Pablo");
    bool ordered = true, has_hans = false;
    for (std::size_t i = 0; i < page.reviews.size(); ++i) {
      if (i > 0 && page.reviews[i - 1].published_date < page.reviews[i].published_date) ordered = false;
      if (page.reviews[i].review_id == 1) has_hans = true;
    }
    check(ordered, "the embedded reviews are ordered by published_date, descending");
    check(!has_hans, "the oldest review (Hans, 2017) is not embedded");
    const odm::Document stored = products.find_one<odm::Document>(odm::field(&Product::id) == 1).value();
    check(stored.to_json().find("product_id") == std::string::npos, "embedded reviews carry no product_id");

    example::step("every review is in `review`; \"show more\" reads the older ones from there");
    check(reviews.count(odm::field(&Review::product_id) == 1) == 12, "the review collection holds all 12");
    const auto older = reviews
                           .find(odm::field(&Review::product_id) == 1,
                                 odm::FindOptions<Review>{}
                                     .sort(odm::sort(odm::desc(&Review::published_date)))
                                     .skip(10))
                           .to_vector();
    example::show_all("older reviews", older);
    check(older.size() == 2 && older[1].review_id == 1 && older[1].review_author == "Hans",
          "the two oldest are only in `review`, Hans last");

    example::step("Kristina's review is removed: the next newest moves into the product");
    Review kristina = added[0];
    kristina.product_id = 1;
    check(odm::subset::remove(db, &Product::reviews, kristina), "removed review 786");
    const Product after = products.get_by_id(1);
    check(after.reviews.size() == 10 && after.reviews[0].review_id == 785, "Trina's review is the newest now");
    check(after.reviews[9].review_id == 700, "the review of 2018-01-15 moved in from `review`");
    check(reviews.count(odm::field(&Review::product_id) == 1) == 11, "the review collection holds the other 11");

    example::step("the page without the reviews: a projection");
    const auto header = products.find_one<ProductHeader>(odm::field(&Product::id) == 1);
    check(header.has_value(), "the header was read");
    example::show("header", *header);
    check(header->price == widget.price, "the header carries the exact price");
  });
}
