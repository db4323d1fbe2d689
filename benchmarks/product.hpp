#pragma once
// The seed product with its ten newest reviews, shared by the codec and driver benchmarks:
// the struct, and the hand-written libbson code a careful C programmer would write for it
// (the same checks as odm's codecs; see codec_bench.cpp for the rules both sides follow).

#include <odm/odm.hpp>

#include "handwritten.hpp"
#include <bson/bson.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bench_product {

using namespace handwritten;  // NOLINT(google-build-using-namespace): the shared hand-written readers
using std::chrono::sys_days;

// The seed product of the subset pattern ("Модел на подмножество"): the product with its
// ten latest reviews embedded, plus `stock`, the counter the driver benchmark's update
// increments (as the seed book's checkout does with `available`).
struct Review {
  std::int32_t review_id;
  std::string review_author;
  std::string review_text;
  sys_days published_date;
};

struct Product {
  std::int32_t id;  // stored as _id
  std::string name;
  std::string description;
  odm::Money price;
  std::int32_t stock;
  std::vector<Review> reviews;
};

/// The seed product, with id `id`.
inline Product make_product(std::int32_t id = 1) {
  using namespace std::chrono;
  const auto day = [](int m, int d) { return sys_days(year(2019) / m / d); };
  return Product{
      .id = id,
      .name = "Super Widget",
      .description = "This is the most useful item in your toolbox.",
      .price = odm::Money(odm::Decimal("119.99"), "USD"),
      .stock = 40,
      .reviews =
          {
              {786, "Kristina", "This is indeed an amazing widget.", day(2, 18)},
              {785, "Trina", "Nice product. Slow shipping.", day(2, 17)},
              {784, "Hans", "Meh, it's okay.", day(2, 17)},
              {783, "Anna", "Does exactly what the box says, and the box says a lot.", day(2, 17)},
              {782, "Oleksandr", "Second one I bought; the first is still going strong.", day(2, 17)},
              {781, "Maria", "Sturdy, light, and the handle does not slip.", day(2, 16)},
              {780, "Jamal", "Good value for the price.", day(2, 16)},
              {779, "Yuki", "Arrived a day early. Works as advertised.", day(2, 16)},
              {778, "Petar", "Would give six stars if I could.", day(2, 16)},
              {777, "Pablo", "Amazing!", day(2, 16)},
          },
  };
}

// Product, by hand.
//
// Money, exactly as odm's codec<Money> (odm/fields/money.cpp) stores and checks it:
//   {value: <Decimal128>, currency: <3-letter string>}
// encode: the Decimal's BID bits from Decimal::to_bson_decimal128(); the currency string
//         is not UTF-8 validated on either side (Money only holds three letters A-Z).
// decode: both fields required, no other field allowed, no duplicates; value must be a
//         finite Decimal128 (the conversion odm uses, reached through odm::detail::Access); currency a
//         string of three uppercase letters; the Money is then built with its public
//         constructor, which checks the code once more (odm does the same).

inline bool append_money(bson_t* parent, const char* key, int key_length, const odm::Money& money) {
  bson_t child;
  if (!bson_append_document_begin(parent, key, key_length, &child)) return false;
  const bson_decimal128_t bid = money.amount().to_bson_decimal128();
  const std::string_view code = money.currency();
  return bson_append_decimal128(&child, "value", 5, &bid) &&
         bson_append_utf8(&child, "currency", 8, code.data(), static_cast<int>(code.size())) &&
         bson_append_document_end(parent, &child);
}

inline bool read_money(const bson_iter_t* it, odm::Money* out) {
  if (bson_iter_type(it) != BSON_TYPE_DOCUMENT) return false;
  bson_iter_t child;
  if (!bson_iter_recurse(it, &child)) return false;
  odm::Decimal amount;
  const char* code = nullptr;
  std::uint32_t seen = 0;
  while (bson_iter_next(&child)) {
    const char* key = bson_iter_key(&child);
    const std::uint32_t length = bson_iter_key_len(&child);
    if (length == 5 && is_key(key, "value")) {
      if (!claim(&seen, 1u << 0) || bson_iter_type(&child) != BSON_TYPE_DECIMAL128) return false;
      bson_decimal128_t bid;
      bson_iter_decimal128(&child, &bid);
      if (odm::detail::Access::decode_bid(bid, amount) != nullptr) return false;  // NaN or infinity
    } else if (length == 8 && is_key(key, "currency")) {
      if (!claim(&seen, 1u << 1) || bson_iter_type(&child) != BSON_TYPE_UTF8) return false;
      std::uint32_t code_length = 0;
      code = bson_iter_utf8(&child, &code_length);
      if (!odm::Money::is_currency_code(std::string_view(code, code_length))) return false;
    } else {
      return false;  // a money value has only value and currency
    }
  }
  if (child.err_off != 0 || seen != 3) return false;
  *out = odm::Money(amount, std::string_view(code, 3));
  return true;
}

// Review: an embedded document. Product: the whole document.

inline bool append_review(bson_t* parent, const char* key, int key_length, const Review& r) {
  bson_t child;
  return bson_append_document_begin(parent, key, key_length, &child) &&
         bson_append_int32(&child, "review_id", 9, r.review_id) &&
         append_string(&child, "review_author", 13, r.review_author) &&
         append_string(&child, "review_text", 11, r.review_text) &&
         bson_append_date_time(&child, "published_date", 14,
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   r.published_date.time_since_epoch()).count()) &&
         bson_append_document_end(parent, &child);
}

/// Appends the fields of `p` to `doc` (initialized by the caller: bson_new() or a bson_t
/// on the stack with bson_init()). False when an append fails or a string is not UTF-8.
inline bool append_product_fields(bson_t* doc, const Product& p) {
  bool ok = bson_append_int32(doc, "_id", 3, p.id) &&                        //
            append_string(doc, "name", 4, p.name) &&                         //
            append_string(doc, "description", 11, p.description) &&          //
            append_money(doc, "price", 5, p.price) &&                        //
            bson_append_int32(doc, "stock", 5, p.stock);
  bson_t array;
  ok = ok && bson_append_array_begin(doc, "reviews", 7, &array);
  for (std::uint32_t i = 0; ok && i < p.reviews.size(); ++i) {
    char buffer[16];
    const char* key = nullptr;
    const std::size_t key_length = bson_uint32_to_string(i, &key, buffer, sizeof buffer);
    ok = append_review(&array, key, static_cast<int>(key_length), p.reviews[i]);
  }
  return ok && bson_append_array_end(doc, &array);
}

// The keys of a review (and of a product) all have different lengths, so the length
// alone picks the one candidate, and one memcmp confirms it.
inline bool read_review(const bson_iter_t* it, Review* out) {
  if (bson_iter_type(it) != BSON_TYPE_DOCUMENT) return false;
  bson_iter_t child;
  if (!bson_iter_recurse(it, &child)) return false;
  std::uint32_t seen = 0;
  while (bson_iter_next(&child)) {
    const char* key = bson_iter_key(&child);
    bool ok = true;
    switch (bson_iter_key_len(&child)) {
      case 9:
        if (is_key(key, "review_id")) ok = claim(&seen, 1u << 0) && read_int32(&child, &out->review_id);
        break;
      case 13:
        if (is_key(key, "review_author")) ok = claim(&seen, 1u << 1) && read_string(&child, &out->review_author);
        break;
      case 11:
        if (is_key(key, "review_text")) ok = claim(&seen, 1u << 2) && read_string(&child, &out->review_text);
        break;
      case 14:
        if (is_key(key, "published_date")) ok = claim(&seen, 1u << 3) && read_days(&child, &out->published_date);
        break;
      default: break;  // unknown field: ignored
    }
    if (!ok) return false;
  }
  return child.err_off == 0 && seen == 15;
}

inline bool decode_product_handwritten(const bson_t* doc, Product* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return false;
  std::uint32_t seen = 0;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    bool ok = true;
    switch (bson_iter_key_len(&it)) {
      case 3:
        if (is_key(key, "_id")) ok = claim(&seen, 1u << 0) && read_int32(&it, &out->id);
        break;
      case 4:
        if (is_key(key, "name")) ok = claim(&seen, 1u << 1) && read_string(&it, &out->name);
        break;
      case 11:
        if (is_key(key, "description")) ok = claim(&seen, 1u << 2) && read_string(&it, &out->description);
        break;
      case 5:
        if (is_key(key, "price"))
          ok = claim(&seen, 1u << 3) && read_money(&it, &out->price);
        else if (is_key(key, "stock"))
          ok = claim(&seen, 1u << 5) && read_int32(&it, &out->stock);
        break;
      case 7:
        if (is_key(key, "reviews")) ok = claim(&seen, 1u << 4) && read_array(&it, &out->reviews, read_review);
        break;
      default: break;  // unknown field: ignored
    }
    if (!ok) return false;
  }
  return it.err_off == 0 && seen == 63;
}

inline bool review_equal(const Review& a, const Review& b) {
  return a.review_id == b.review_id && a.review_author == b.review_author && a.review_text == b.review_text &&
         a.published_date == b.published_date;
}

inline bool product_equal(const Product& a, const Product& b) {
  if (a.id != b.id || a.stock != b.stock || a.name != b.name || a.description != b.description || a.reviews.size() != b.reviews.size() ||
      a.price.currency() != b.price.currency() || !a.price.amount().same_representation(b.price.amount()))
    return false;
  for (std::size_t i = 0; i < a.reviews.size(); ++i)
    if (!review_equal(a.reviews[i], b.reviews[i])) return false;
  return true;
}

}  // namespace bench_product
