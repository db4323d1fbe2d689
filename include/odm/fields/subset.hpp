#pragma once
// odm::Subset<T, N, &T::order_key>: the subset pattern. The owner embeds at most N items of
// T, ordered by a member of T (newest first by default); every item also lives in T's own
// collection with a ParentRef back to the owner.
//
//   struct Review {
//     std::int32_t review_id;
//     odm::ParentRef<Product> product_id;        // in the `review` collection only
//     std::string review_author;
//     std::string review_text;
//     std::chrono::sys_days published_date;
//     struct odm_model { static constexpr auto key = &Review::review_id; };  // identifies an item
//   };
//   struct Product {
//     std::int32_t id;
//     ...
//     odm::Subset<Review, 10, &Review::published_date> reviews;  // the 10 newest
//   };
//
// Embedded items are stored without their ParentRef members (the enclosing document is
// the owner), exactly as the guides' product embeds its reviews. odm keeps both sides
// consistent through the operations in odm/join/subset.hpp (add, update, remove, repair),
// and plans the index `{product_id: 1, published_date: -1, review_id: -1}` on the full
// collection (its order: the order key, ties broken by the item's key).

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/record.hpp>
#include <odm/fields/ref.hpp>
#include <odm/model/model.hpp>
#include <odm/reflect/members.hpp>

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

/// Which end of the order key a Subset keeps.
enum class Keep { largest, smallest };

namespace detail {

template <class M>
inline constexpr bool is_parent_ref = false;
template <class T, Dangling P>
inline constexpr bool is_parent_ref<ParentRef<T, P>> = true;

template <class M, class Owner>
inline constexpr bool is_parent_ref_to = false;
template <class Owner, Dangling P>
inline constexpr bool is_parent_ref_to<ParentRef<Owner, P>, Owner> = true;

/// The position of T's ParentRef<Owner> member, or member_count<T> when it has none.
template <class T, class Owner>
consteval std::size_t parent_ref_index() {
  std::size_t found = member_count<T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((is_parent_ref_to<boost::pfr::tuple_element_t<I, T>, Owner> && found == member_count<T> ? (found = I, 0) : 0), ...);
  }(std::make_index_sequence<member_count<T>>{});
  return found;
}

/// The member that identifies an item of a Subset: the model's `key`, else its id.
template <class T>
consteval std::size_t subset_key_index() {
  if constexpr (requires { metadata_t<T>::key; })
    return member_index(metadata_t<T>::key);
  else {
    for (std::size_t i = 0; i < member_count<T>; ++i)
      if (stored_names<T>[i] == "_id") return i;
    return member_count<T>;
  }
}

}  // namespace detail

template <class T, std::size_t N, auto OrderKey, Keep Which = Keep::largest>
class Subset {
 public:
  using value_type = T;
  static constexpr std::size_t capacity = N;
  static constexpr auto order_key = OrderKey;
  static constexpr Keep keeps = Which;
  static_assert(N > 0, "odm::Subset: N must be at least 1");

  Subset() = default;
  Subset(std::vector<T> items) : items_(std::move(items)) {}  // NOLINT(google-explicit-constructor)
  Subset(std::initializer_list<T> items) : items_(items) {}

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  const T& operator[](std::size_t i) const { return items_[detail::checked_position("Subset::operator[]", i, items_.size())]; }
  auto begin() const noexcept { return items_.begin(); }
  auto end() const noexcept { return items_.end(); }
  const std::vector<T>& items() const noexcept { return items_; }

  friend bool operator==(const Subset&, const Subset&) = default;

 private:
  std::vector<T> items_;
};

namespace detail {

/// Appends an item as it is embedded in its owner: every member but its ParentRefs.
template <class T>
void encode_embedded_item(bson_t* array, std::string_view key, const T& item) {
  using traits = record_traits<T, false>;
  const EncodeLevel level;
  bson_t document;
  check_append(bson_append_document_begin(array, key.data(), key_length(key), &document));
  std::size_t current = 0;
  try {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            using M = typename traits::template member_type<I>;
            if constexpr (!is_parent_ref<M>) {
              current = I;
              codec<M>::encode(&document, traits::names[I], boost::pfr::get<I>(item));
            }
          }(),
          ...);
    }(std::make_index_sequence<traits::size>{});
  } catch (PathError& e) {
    e.prepend(traits::names[current]);
    throw;
  }
  check_append(bson_append_document_end(array, &document));
}

}  // namespace detail

// An array of the embedded items, at most N of them.
template <class T, std::size_t N, auto OrderKey, Keep Which>
struct codec<Subset<T, N, OrderKey, Which>> {
  using subset = Subset<T, N, OrderKey, Which>;
  static void encode(bson_t* parent, std::string_view key, const subset& value) {
    if (value.size() > N) [[unlikely]]
      throw EncodeError("the subset holds " + std::to_string(value.size()) + " items, more than its " +
                        std::to_string(N));
    const detail::EncodeLevel level;
    bson_t array;
    detail::check_append(bson_append_array_begin(parent, key.data(), detail::key_length(key), &array));
    std::uint32_t index = 0;
    for (const T& item : value) {
      const detail::ArrayKey element_key(index++);
      detail::at_path(element_key.view(), [&] { detail::encode_embedded_item(&array, element_key.view(), item); });
    }
    detail::check_append(bson_append_array_end(parent, &array));
  }
  static void decode(const bson_iter_t& it, subset& out) {
    std::vector<T> items;
    codec<std::vector<T>>::decode(it, items);
    // More than N embedded items is tolerated on read (another writer's N may differ);
    // the next write through odm::subset trims the array again.
    out = subset(std::move(items));
  }
};

template <class T, std::size_t N, auto OrderKey, Keep Which>
struct detail::variant_shape<Subset<T, N, OrderKey, Which>> : detail::variant_shape<std::vector<T>> {};

}  // namespace odm
