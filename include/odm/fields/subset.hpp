#pragma once
// odm::Subset<T, N, &T::order_key>: the subset pattern. The owner embeds at most N items of
// T, ordered by a member of T (descending by default: the N largest, e.g. the newest); every
// item also lives in T's own collection with a ParentRef back to the owner.
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
#include <odm/bson/kind.hpp>
#include <odm/bson/writer.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/record.hpp>
#include <odm/fields/ref.hpp>
#include <odm/model/direction.hpp>
#include <odm/model/model.hpp>

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

namespace detail {
struct SubsetItems;  // joins resolve references inside the items (join/embedded_paths.hpp)
}

/// At most N items of T, ordered by the member OrderKey in the direction Order (descending
/// keeps the N largest).
template <class T, std::size_t N, auto OrderKey, Direction Order = Direction::descending>
class Subset {
 public:
  using value_type = T;
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
  friend struct detail::SubsetItems;
  std::vector<T> items_;
};

namespace detail {

/// Appends an item as it is embedded in its owner: every member but its ParentRefs (they
/// point at the owner, which the enclosing document is).
template <class T>
void encode_embedded_item(bson_t* array, std::string_view key, const T& item) {
  const EncodeLevel level;
  ChildWriter document(array, key);
  members<T>::for_each([&](auto member) {
    using Member = decltype(member);
    if constexpr (!is_parent_reference<Member>)
      at_path(Member::nested_name,
              [&] { codec<typename Member::type>::encode(document.get(), Member::nested_name, Member::of(item)); });
  });
  document.close();
}

}  // namespace detail

// An array of the embedded items. A stored array longer than N is read, and written back
// as it is (another writer's N may differ); the next odm::subset operation trims it.
template <class T, std::size_t N, auto OrderKey, Direction Order>
struct codec<Subset<T, N, OrderKey, Order>> {
  using subset = Subset<T, N, OrderKey, Order>;
  using kind = kinds::array<kinds::subset_item<T>>;
  using relation = subset_of<T, N, OrderKey, Order>;
  static void encode(bson_t* parent, std::string_view key, const subset& value) {
    const detail::EncodeLevel level;
    detail::ChildWriter array(parent, key, detail::ChildWriter::Kind::array);
    for (const T& item : value) {
      const detail::ArrayKey element_key(array.next_index());
      detail::at_path(element_key.view(),
                      [&] { detail::encode_embedded_item(array.get(), element_key.view(), item); });
    }
    array.close();
  }
  static void decode(const bson_iter_t& it, subset& out) {
    std::vector<T> items;
    codec<std::vector<T>>::decode(it, items);
    out = subset(std::move(items));
  }
};

template <class T, std::size_t N, auto OrderKey, Direction Order>
struct detail::variant_shape<Subset<T, N, OrderKey, Order>> : detail::variant_shape<std::vector<T>> {};

}  // namespace odm
