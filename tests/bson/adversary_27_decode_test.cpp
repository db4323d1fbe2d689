// Adversarial probes (adv27) of the struct decoder after its members' decoders became one
// function per member *type* (odm::detail::decode_value<M>, include/odm/bson/record.hpp),
// shared by every struct holding a member of that type, with the out-of-order path
// (odm::detail::decode_unordered, odm/bson/codec.cpp) reaching members through the
// record's table (RecordLayout::decoders and the member addresses of RecordLayout::addresses).
//
// What is asserted is the documented behaviour (README, "Mapping", "Decoding", "Models that
// change"): fields may arrive in any order and each lands in the member it names; an absent
// optional or defaulted member keeps its initializer; unknown fields go, in document order,
// to an odm::Extra member, which encoding writes back where it is declared; a renamed
// member reads its old name's value when the document has it, else the new one's; errors
// name the dotted path of the problem. Every expected value is built by hand (or by a
// hand-written serializer of the expected object), never taken from the decoder.
//
// Seeds: every randomized test prints its seed (SCOPED_TRACE); ODM_ADVERSARY27_SEED
// overrides the base seed.

#include "test_support.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace adversary_27 {

// ---- JSON building ----------------------------------------------------------------------------

using Fields = std::vector<std::pair<std::string, std::string>>;  // key, JSON value

inline std::string i32(std::int32_t v) { return R"({"$numberInt": ")" + std::to_string(v) + R"("})"; }
inline std::string i64(std::int64_t v) { return R"({"$numberLong": ")" + std::to_string(v) + R"("})"; }
inline std::string dbl(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return R"({"$numberDouble": ")" + std::string(buf) + R"("})";
}
inline std::string js(const std::string& s) { return "\"" + s + "\""; }  // alphanumeric only

inline std::string object(const Fields& fields) {
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += js(fields[i].first) + ": " + fields[i].second;
  }
  return out + "}";
}
inline std::string array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += values[i];
  }
  return out + "]";
}

inline unsigned base_seed(unsigned fallback) {
  if (const char* s = std::getenv("ODM_ADVERSARY27_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  return fallback;
}

/// Unique values, so that a value landing in the wrong member is always seen.
struct Values {
  std::mt19937& rng;
  std::int64_t counter = 0;
  std::string text() { return "v" + std::to_string(++counter) + "x" + std::to_string(rng() % 1000); }
  std::int32_t number() { return static_cast<std::int32_t>(++counter * 7 + static_cast<std::int64_t>(rng() % 5)); }
  bool coin(unsigned percent = 50) { return rng() % 100 < percent; }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : rng() % n; }
};

template <class T>
void shuffle(std::vector<T>& v, std::mt19937& rng) {
  std::shuffle(v.begin(), v.end(), rng);
}

/// {path(), reason()} of decoding `json` as T, or {"<no error>", ""}.
template <class T>
std::pair<std::string, std::string> failure(const std::string& json) {
  const odm::Document doc = odm::Document::from_json(json);
  try {
    (void)odm::from_bson<T>(doc);
  } catch (const odm::DecodeError& e) {
    return {e.path(), e.reason()};
  }
  return {"<no error>", ""};
}

/// A copy of `doc` whose fields, at every level (inside array elements too), are in a
/// random order; arrays keep theirs.
inline void copy_shuffled(const bson_t* from, bson_t* to, bool is_array, std::mt19937& rng);
inline void append_shuffled(bson_t* to, const bson_iter_t& it, const char* key, int key_len, std::mt19937& rng) {
  const bson_type_t type = bson_iter_type(&it);
  if (type == BSON_TYPE_DOCUMENT || type == BSON_TYPE_ARRAY) {
    std::uint32_t len = 0;
    const std::uint8_t* data = nullptr;
    if (type == BSON_TYPE_DOCUMENT)
      bson_iter_document(&it, &len, &data);
    else
      bson_iter_array(&it, &len, &data);
    bson_t child_in;
    ASSERT_TRUE(bson_init_static(&child_in, data, len));
    bson_t child_out;
    if (type == BSON_TYPE_DOCUMENT)
      bson_append_document_begin(to, key, key_len, &child_out);
    else
      bson_append_array_begin(to, key, key_len, &child_out);
    copy_shuffled(&child_in, &child_out, type == BSON_TYPE_ARRAY, rng);
    if (type == BSON_TYPE_DOCUMENT)
      bson_append_document_end(to, &child_out);
    else
      bson_append_array_end(to, &child_out);
  } else {
    bson_append_iter(to, key, key_len, &it);
  }
}
inline void copy_shuffled(const bson_t* from, bson_t* to, bool is_array, std::mt19937& rng) {
  // Positions, not iterators: bson_iter_t is over-aligned (128), which std::vector's
  // allocator does not honour.
  std::vector<std::size_t> order(bson_count_keys(from));
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (!is_array) shuffle(order, rng);
  for (const std::size_t position : order) {
    bson_iter_t f;
    bson_iter_init(&f, from);
    for (std::size_t i = 0; i <= position; ++i) bson_iter_next(&f);
    append_shuffled(to, f, bson_iter_key(&f), static_cast<int>(bson_iter_key_len(&f)), rng);
  }
}
inline odm::Document shuffled(const odm::Document& doc, std::mt19937& rng) {
  odm::Document out;
  copy_shuffled(doc.get(), out.get_mutable(), false, rng);
  return out;
}

inline std::vector<std::string> keys_of(const odm::Document& doc) {
  std::vector<std::string> out;
  bson_iter_t it;
  bson_iter_init(&it, doc.get());
  while (bson_iter_next(&it)) out.emplace_back(bson_iter_key(&it), bson_iter_key_len(&it));
  return out;
}

// ---- models: several members of one type, in every order --------------------------------------

struct Six {
  std::string s0, s1, s2, s3, s4, s5;
  friend bool operator==(const Six&, const Six&) = default;
};
struct SixOpt {
  std::optional<std::string> o0, o1, o2, o3, o4, o5;
  friend bool operator==(const SixOpt&, const SixOpt&) = default;
};
struct SixVec {
  std::vector<std::int32_t> v0, v1, v2, v3, v4, v5;
  friend bool operator==(const SixVec&, const SixVec&) = default;
};
struct Pair {
  std::string x;
  std::string y;
  friend bool operator==(const Pair&, const Pair&) = default;
};
struct SixPair {
  Pair p0, p1, p2, p3, p4, p5;
  friend bool operator==(const SixPair&, const SixPair&) = default;
};
struct SixInt {
  std::int32_t n0 = -1, n1 = -1, n2 = -1, n3 = -1, n4 = -1, n5 = -1;
  friend bool operator==(const SixInt&, const SixInt&) = default;
};

// ---- models: a tree of structs sharing member types --------------------------------------------

struct Leaf {
  std::int32_t id = 0;  // stays "id" inside an embedded document
  std::string a;        // stored as "zz_a"
  std::string b;
  std::int32_t n = 0;
  std::optional<std::string> c;
  std::vector<std::string> tags;
  friend bool operator==(const Leaf&, const Leaf&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Leaf::a, "zz_a"));
  };
};

struct Mid {
  Leaf first;
  std::vector<Leaf> leaves;
  std::map<std::string, Leaf> by;
  std::optional<Leaf> maybe;
  Leaf second;
  std::string a;
  std::string b;
  std::optional<std::string> c;
  friend bool operator==(const Mid&, const Mid&) = default;
};

struct Top {
  std::int64_t id = 0;  // "_id"
  Mid m;
  std::vector<Mid> ms;
  Leaf leaf;
  std::string a;
  std::optional<Mid> om;
  std::map<std::string, std::vector<Leaf>> groups;
  odm::Embedded<Leaf> emb;
  std::string b;
  friend bool operator==(const Top&, const Top&) = default;
};

struct Gen {
  Values& val;

  Leaf leaf() {
    Leaf l;
    l.id = val.number();
    l.a = val.text();
    l.b = val.text();
    l.n = val.number();
    if (val.coin()) l.c = val.text();
    const std::size_t tags = val.below(3);
    for (std::size_t i = 0; i < tags; ++i) l.tags.push_back(val.text());
    return l;
  }
  Mid mid() {
    Mid m;
    m.first = leaf();
    const std::size_t count = val.below(4);
    for (std::size_t i = 0; i < count; ++i) m.leaves.push_back(leaf());
    const std::size_t keys = val.below(3);
    for (std::size_t i = 0; i < keys; ++i) m.by["k" + std::to_string(i)] = leaf();
    if (val.coin()) m.maybe = leaf();
    m.second = leaf();
    m.a = val.text();
    m.b = val.text();
    if (val.coin()) m.c = val.text();
    return m;
  }
  Top top() {
    Top t;
    t.id = static_cast<std::int64_t>(val.number()) * 1000003LL;
    t.m = mid();
    const std::size_t count = val.below(3);
    for (std::size_t i = 0; i < count; ++i) t.ms.push_back(mid());
    t.leaf = leaf();
    t.a = val.text();
    if (val.coin()) t.om = mid();
    const std::size_t groups = val.below(3);
    for (std::size_t g = 0; g < groups; ++g) {
      auto& list = t.groups["g" + std::to_string(g)];
      const std::size_t n = val.below(3);
      for (std::size_t i = 0; i < n; ++i) list.push_back(leaf());
    }
    t.emb = leaf();
    t.b = val.text();
    return t;
  }
};

/// A hand-written serializer of the expected object, each level's fields in a random
/// order; an empty optional is either absent or null. `corrupt` (if not null) names a
/// field of a Leaf to write with the wrong type: the first Leaf reached writes it.
struct Writer {
  Values& val;
  const char* corrupt = nullptr;

  void opt_text(Fields& f, const char* key, const std::optional<std::string>& o) {
    if (o) f.emplace_back(key, js(*o));
    else if (val.coin()) f.emplace_back(key, "null");
  }
  std::string leaf(const Leaf& l) {
    Fields f{{"id", i32(l.id)}, {"zz_a", js(l.a)}, {"b", js(l.b)}, {"n", i32(l.n)}};
    opt_text(f, "c", l.c);
    std::vector<std::string> tags;
    for (const auto& t : l.tags) tags.push_back(js(t));
    f.emplace_back("tags", array(tags));
    if (corrupt != nullptr) {
      for (auto& [k, v] : f)
        if (k == corrupt) v = R"({"wrong": true})";
      corrupt = nullptr;
    }
    shuffle(f, val.rng);
    return object(f);
  }
  std::string mid(const Mid& m) {
    Fields f{{"first", leaf(m.first)}};
    std::vector<std::string> leaves;
    for (const auto& l : m.leaves) leaves.push_back(leaf(l));
    f.emplace_back("leaves", array(leaves));
    Fields by;
    for (const auto& [k, l] : m.by) by.emplace_back(k, leaf(l));
    f.emplace_back("by", object(by));
    if (m.maybe) f.emplace_back("maybe", leaf(*m.maybe));
    else if (val.coin()) f.emplace_back("maybe", "null");
    f.emplace_back("second", leaf(m.second));
    f.emplace_back("a", js(m.a));
    f.emplace_back("b", js(m.b));
    opt_text(f, "c", m.c);
    shuffle(f, val.rng);
    return object(f);
  }
  std::string top(const Top& t) {
    Fields f{{"_id", i64(t.id)}, {"m", mid(t.m)}};
    std::vector<std::string> ms;
    for (const auto& m : t.ms) ms.push_back(mid(m));
    f.emplace_back("ms", array(ms));
    f.emplace_back("leaf", leaf(t.leaf));
    f.emplace_back("a", js(t.a));
    if (t.om) f.emplace_back("om", mid(*t.om));
    else if (val.coin()) f.emplace_back("om", "null");
    Fields groups;
    for (const auto& [k, list] : t.groups) {
      std::vector<std::string> items;
      for (const auto& l : list) items.push_back(leaf(l));
      groups.emplace_back(k, array(items));
    }
    f.emplace_back("groups", object(groups));
    f.emplace_back("emb", leaf(*t.emb));
    f.emplace_back("b", js(t.b));
    shuffle(f, val.rng);
    return object(f);
  }
};

// ---- models: odm::Extra at each position -------------------------------------------------------

struct ExFirst {
  odm::Extra extra;
  std::string a;
  std::string b;
  std::int32_t n = 0;
  std::string c;
  friend bool operator==(const ExFirst&, const ExFirst&) = default;
};
struct ExMid {
  std::string a;
  std::string b;
  odm::Extra extra;
  std::int32_t n = 0;
  std::string c;
  friend bool operator==(const ExMid&, const ExMid&) = default;
};
struct ExLast {
  std::string a;
  std::string b;
  std::int32_t n = 0;
  std::string c;
  odm::Extra extra;
  friend bool operator==(const ExLast&, const ExLast&) = default;
};
struct ExHolder {
  std::int64_t id = 0;
  std::vector<ExMid> mids;
  ExFirst first;
  std::optional<ExLast> last;
  std::map<std::string, ExMid> by;
  odm::Extra extra;
  std::string a;
  friend bool operator==(const ExHolder&, const ExHolder&) = default;
};

// ---- models: renamed members --------------------------------------------------------------------

struct Ren {
  std::int64_t id = 0;
  std::string a = "a0";    // from "old_a" (expand: odm writes both)
  std::string b = "b0";    // from "old_b", the old name no longer written
  std::string c = "c0";    // plain, same type
  std::int32_t n = -5;     // from "old_n"
  odm::Extra extra;
  std::optional<std::string> o = std::string("o0");  // from "old_o"
  std::string d = "d0";    // plain
  friend bool operator==(const Ren&, const Ren&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&Ren::a>("old_a"),
                                               odm::RenamedFrom<Ren, std::string>{&Ren::b, "old_b", false},
                                               odm::renamed_from<&Ren::n>("old_n"), odm::renamed_from<&Ren::o>("old_o"));
  };
};

struct RenLeaf {
  std::string p = "p0";  // from "q"
  std::string r = "r0";
  friend bool operator==(const RenLeaf&, const RenLeaf&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&RenLeaf::p>("q"));
  };
};
struct RenHolder {
  std::int64_t id = 0;
  std::vector<RenLeaf> list;  // from "old_list"
  RenLeaf one;
  std::string p = "hp0";      // same name and type as RenLeaf::p, not renamed here
  friend bool operator==(const RenHolder&, const RenHolder&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&RenHolder::list>("old_list"));
  };
};

// ---- models: more than 64 members -----------------------------------------------------------------

#define ADV27_S(n) std::string m##n = "init" #n;
#define ADV27_I(n) std::int32_t m##n = -(n);
#define ADV27_O(n) std::optional<std::string> m##n = std::string("opt" #n);
struct Big {
  ADV27_S(0) ADV27_I(1) ADV27_O(2) ADV27_S(3) ADV27_I(4) ADV27_O(5) ADV27_S(6) ADV27_I(7) ADV27_O(8)
  ADV27_S(9) ADV27_I(10) ADV27_O(11) ADV27_S(12) ADV27_I(13) ADV27_O(14) ADV27_S(15) ADV27_I(16) ADV27_O(17)
  ADV27_S(18) ADV27_I(19) ADV27_O(20) ADV27_S(21) ADV27_I(22) ADV27_O(23) ADV27_S(24) ADV27_I(25) ADV27_O(26)
  ADV27_S(27) ADV27_I(28) ADV27_O(29) ADV27_S(30) ADV27_I(31) ADV27_O(32) ADV27_S(33) ADV27_I(34) ADV27_O(35)
  ADV27_S(36) ADV27_I(37) ADV27_O(38) ADV27_S(39) ADV27_I(40) ADV27_O(41) ADV27_S(42) ADV27_I(43) ADV27_O(44)
  ADV27_S(45) ADV27_I(46) ADV27_O(47) ADV27_S(48) ADV27_I(49) ADV27_O(50) ADV27_S(51) ADV27_I(52) ADV27_O(53)
  ADV27_S(54) ADV27_I(55) ADV27_O(56) ADV27_S(57) ADV27_I(58) ADV27_O(59) ADV27_S(60) ADV27_I(61) ADV27_O(62)
  ADV27_S(63) ADV27_I(64) ADV27_O(65) ADV27_S(66) ADV27_I(67) ADV27_O(68) ADV27_S(69) ADV27_I(70) ADV27_O(71)
  ADV27_S(72) ADV27_I(73) ADV27_O(74) ADV27_S(75) ADV27_I(76) ADV27_O(77) ADV27_S(78) ADV27_I(79) ADV27_O(80)
  friend bool operator==(const Big&, const Big&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::required(&Big::m66), odm::required(&Big::m3));
  };
};
#undef ADV27_S
#undef ADV27_I
#undef ADV27_O
constexpr int big_size = 81;

// ---- models: alignment ----------------------------------------------------------------------------

struct Aligned {
  bool b0 = false;
  double d0 = 0;
  std::int8_t c0 = 0;
  std::array<double, 3> ad = {0, 0, 0};
  std::int16_t h0 = 0;
  std::int64_t l0 = 0;
  bool b1 = false;
  std::array<std::int8_t, 3> ac = {0, 0, 0};
  double d1 = 0;
  std::int8_t c1 = 0;
  std::string s;
  std::int16_t h1 = 0;
  std::array<std::int64_t, 2> as = {0, 0};
  friend bool operator==(const Aligned&, const Aligned&) = default;
};

// ---- models: defaults -------------------------------------------------------------------------------

inline std::vector<std::string> default_tags() { return {"t1", "t2"}; }
struct Defaults {
  std::string a = "A";
  std::int32_t n = 42;
  std::string b = "B";
  std::vector<std::string> tags = default_tags();
  Pair pair = Pair{"px", "py"};
  std::optional<std::string> o = std::string("O");
  std::optional<std::string> none;
  double d = 2.5;
  std::string c = "C";
  friend bool operator==(const Defaults&, const Defaults&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

// ---- models: a variant of structs ---------------------------------------------------------------------

struct VA {
  std::string a;
  std::string b;
  friend bool operator==(const VA&, const VA&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct VB {
  std::string b;
  std::int32_t c = 0;
  std::string a;
  friend bool operator==(const VB&, const VB&) = default;
};
struct WithVariant {
  std::variant<VA, VB> v;
  std::string a;
  std::vector<std::variant<VA, VB>> vs;
  friend bool operator==(const WithVariant&, const WithVariant&) = default;
};

}  // namespace adversary_27

namespace {

using namespace adversary_27;

/// Every permutation of six members of one type: each field lands in the member it names.
template <class S>
void every_permutation(const std::array<std::string, 6>& names, const std::array<std::string, 6>& values,
                       const S& expected) {
  std::array<int, 6> order{0, 1, 2, 3, 4, 5};
  int count = 0;
  do {
    Fields f;
    for (int i : order) f.emplace_back(names[i], values[i]);
    const std::string json = object(f);
    S got{};
    ASSERT_NO_THROW(got = odm::from_bson<S>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == expected) << json << "\ngot: " << odm::to_json(got);
    ++count;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(count, 720);
  // The in-order decode of what odm writes agrees.
  EXPECT_TRUE(odm::from_bson<S>(odm::to_bson(expected)) == expected);
}

TEST(Adversary27Decode, SixMembersOfOneTypeInEveryOrder) {
  const std::array<std::string, 6> s{"s0", "s1", "s2", "s3", "s4", "s5"};
  every_permutation<Six>(s, {js("A"), js("BB"), js("CCC"), js(""), js("EEEEE"), js("F")},
                         Six{"A", "BB", "CCC", "", "EEEEE", "F"});
  const std::array<std::string, 6> o{"o0", "o1", "o2", "o3", "o4", "o5"};
  every_permutation<SixOpt>(o, {js("A"), "null", js("C"), js("D"), "null", js("F")},
                            SixOpt{"A", std::nullopt, "C", "D", std::nullopt, "F"});
  const std::array<std::string, 6> v{"v0", "v1", "v2", "v3", "v4", "v5"};
  every_permutation<SixVec>(v, {"[]", array({i32(1)}), array({i32(2), i32(2)}), array({i32(3), i32(3), i32(3)}), "[]",
                                array({i32(5)})},
                            SixVec{{}, {1}, {2, 2}, {3, 3, 3}, {}, {5}});
  const std::array<std::string, 6> p{"p0", "p1", "p2", "p3", "p4", "p5"};
  every_permutation<SixPair>(
      p,
      {R"({"x": "0x", "y": "0y"})", R"({"y": "1y", "x": "1x"})", R"({"x": "2x", "y": "2y"})",
       R"({"y": "3y", "x": "3x"})", R"({"x": "4x", "y": "4y"})", R"({"y": "5y", "x": "5x"})"},
      SixPair{{"0x", "0y"}, {"1x", "1y"}, {"2x", "2y"}, {"3x", "3y"}, {"4x", "4y"}, {"5x", "5y"}});
  const std::array<std::string, 6> n{"n0", "n1", "n2", "n3", "n4", "n5"};
  every_permutation<SixInt>(n, {i32(10), i32(11), i32(12), i32(13), i32(14), i32(15)},
                            SixInt{10, 11, 12, 13, 14, 15});
}

/// Optional members absent in any order keep nullopt; each present one its value.
TEST(Adversary27Decode, SixOptionalsWithSomeAbsentInEveryOrder) {
  const std::array<std::string, 6> names{"o0", "o1", "o2", "o3", "o4", "o5"};
  for (int mask = 0; mask < 64; ++mask) {
    std::vector<int> present;
    SixOpt expected;
    std::array<std::optional<std::string>*, 6> members{&expected.o0, &expected.o1, &expected.o2,
                                                       &expected.o3, &expected.o4, &expected.o5};
    for (int i = 0; i < 6; ++i)
      if (mask & (1 << i)) {
        present.push_back(i);
        *members[i] = "val" + std::to_string(i);
      }
    do {
      Fields f;
      for (int i : present) f.emplace_back(names[i], js("val" + std::to_string(i)));
      const std::string json = object(f);
      const SixOpt got = odm::from_bson<SixOpt>(odm::Document::from_json(json));
      ASSERT_TRUE(got == expected) << json << "\ngot: " << odm::to_json(got);
    } while (std::next_permutation(present.begin(), present.end()));
  }
}

/// Wrong type, duplicate and missing fields in any order: the error names the member.
TEST(Adversary27Decode, ErrorsNameTheRightMemberInEveryOrder) {
  const unsigned seed = base_seed(27001);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int round = 0; round < 300; ++round) {
    const int bad = static_cast<int>(rng() % 6);
    Fields f;
    for (int i = 0; i < 6; ++i) f.emplace_back("s" + std::to_string(i), i == bad ? i32(i) : js("x" + std::to_string(i)));
    shuffle(f, rng);
    {
      const auto [path, reason] = failure<Six>(object(f));
      EXPECT_EQ(path, "s" + std::to_string(bad)) << object(f) << ": " << reason;
      EXPECT_EQ(reason.rfind("expected string, got ", 0), 0u) << object(f) << ": " << reason;
    }
    // The wrong one fixed, another one written twice.
    for (auto& [k, v] : f)
      if (k == "s" + std::to_string(bad)) v = js("fixed");
    const int twice = static_cast<int>(rng() % 6);
    Fields dup = f;
    dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(rng() % (dup.size() + 1)),
               {"s" + std::to_string(twice), js("again")});
    {
      const auto [path, reason] = failure<Six>(object(dup));
      EXPECT_EQ(path, "s" + std::to_string(twice)) << object(dup) << ": " << reason;
      EXPECT_EQ(reason, "field appears twice in the document") << object(dup);
    }
    // One missing.
    Fields missing = f;
    const std::size_t drop = rng() % missing.size();
    const std::string dropped = missing[drop].first;
    missing.erase(missing.begin() + static_cast<std::ptrdiff_t>(drop));
    {
      const auto [path, reason] = failure<Six>(object(missing));
      EXPECT_EQ(path, dropped) << object(missing) << ": " << reason;
      EXPECT_EQ(reason, "missing required field") << object(missing);
    }
  }
}

/// A tree of structs sharing member types (std::string, Leaf, std::optional<std::string>...)
/// at every level, each level's fields in a random order: decodes to the object written.
TEST(Adversary27Decode, NestedStructsSharingMemberTypesInRandomOrder) {
  const unsigned seed = base_seed(27002);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  Gen gen{val};
  for (int round = 0; round < 300; ++round) {
    const Top expected = gen.top();
    Writer writer{val};
    const std::string json = writer.top(expected);
    Top got;
    ASSERT_NO_THROW(got = odm::from_bson<Top>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == expected) << "round " << round << "\n" << json << "\ngot:      " << odm::to_json(got)
                                 << "\nexpected: " << odm::to_json(expected);
    // Decoding other structs holding the same member types, in between, changes nothing.
    const Mid m = odm::from_bson<Mid>(odm::Document::from_json(writer.mid(expected.m)));
    ASSERT_TRUE(m == expected.m);
    // At the top of a document, Leaf's `id` is stored as "_id".
    std::string leaf_json = writer.leaf(expected.leaf);
    leaf_json.replace(leaf_json.find("\"id\": "), 6, "\"_id\": ");
    const Leaf l = odm::from_bson<Leaf>(odm::Document::from_json(leaf_json));
    ASSERT_TRUE(l == expected.leaf);
    ASSERT_TRUE(odm::from_bson<Top>(odm::to_bson(expected)) == expected) << "in-order decode";
  }
}

/// A wrong type deep in a shuffled tree is named by its dotted path.
TEST(Adversary27Decode, AWrongTypeDeepInAShuffledTreeIsNamedByItsPath) {
  const unsigned seed = base_seed(27003);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  Gen gen{val};
  for (int round = 0; round < 100; ++round) {
    Mid mid = gen.mid();
    const char* field = std::array<const char*, 5>{"id", "zz_a", "b", "n", "tags"}[rng() % 5];
    Writer writer{val};
    Fields f;
    std::string where;
    switch (rng() % 4) {
      case 0:
        writer.corrupt = field;
        f.emplace_back("second", writer.leaf(mid.second));
        where = "second";
        break;
      case 1:
        writer.corrupt = field;
        f.emplace_back("maybe", writer.leaf(mid.first));
        where = "maybe";
        break;
      case 2: {
        std::vector<std::string> items{writer.leaf(mid.first), writer.leaf(mid.second)};
        writer.corrupt = field;
        items.push_back(writer.leaf(mid.first));
        f.emplace_back("leaves", array(items));
        where = "leaves.2";
        break;
      }
      default:
        writer.corrupt = field;
        f.emplace_back("by", object({{"kk", writer.leaf(mid.first)}}));
        where = "by.kk";
        break;
    }
    for (const char* other : {"first", "second", "maybe"})
      if (std::none_of(f.begin(), f.end(), [&](const auto& p) { return p.first == other; }))
        f.emplace_back(other, writer.leaf(mid.first));
    f.emplace_back("a", js("a"));
    f.emplace_back("b", js("b"));
    shuffle(f, rng);
    const std::string json = object(f);
    const auto [path, reason] = failure<Mid>(json);
    EXPECT_EQ(path, where + "." + field) << json << ": " << reason;
    EXPECT_EQ(reason.rfind("expected ", 0), 0u) << json << ": " << reason;
  }
}

/// to_bson, then every level's fields shuffled: from_bson gives the object again.
TEST(Adversary27Decode, RoundTripThroughShuffledBson) {
  const unsigned seed = base_seed(27004);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  Gen gen{val};
  for (int round = 0; round < 300; ++round) {
    const Top expected = gen.top();
    const odm::Document written = odm::to_bson(expected);
    const odm::Document mixed = shuffled(written, rng);
    Top got;
    ASSERT_NO_THROW(got = odm::from_bson<Top>(mixed)) << mixed.to_canonical_json();
    ASSERT_TRUE(got == expected) << mixed.to_canonical_json() << "\ngot: " << odm::to_json(got);
    EXPECT_EQ(odm::to_bson(got).to_canonical_json(), written.to_canonical_json());
  }
}

/// odm::Extra first, in the middle, last: members get their fields in any order; every
/// other field (also one named like the Extra member) is kept once, in document order; the
/// encoding writes them where the member is declared.
template <class E>
void extra_case(std::mt19937& rng, int extra_position) {
  for (int round = 0; round < 200; ++round) {
    Values val{rng};
    E expected;
    expected.a = val.text();
    expected.b = val.text();
    expected.n = val.number();
    expected.c = val.text();
    Fields f{{"a", js(expected.a)}, {"b", js(expected.b)}, {"n", i32(expected.n)}, {"c", js(expected.c)}};
    const std::vector<std::pair<std::string, std::string>> unknown_pool{
        {"extra", i32(1)},           {"u1", js("x")},           {"u2", R"({"a": "inner", "n": 2})"},
        {"A", js("capital")},        {"aa", i32(3)},            {"_id", i32(4)},
        {"u3", "[1, \"two\", {}]"},  {"", js("empty key")},     {"bb", "null"},
        {"zzzzzz", i64(1LL << 40)},  {"n0", js("n0")},          {"c ", js("space")}};
    Fields unknown;
    for (const auto& u : unknown_pool)
      if (val.coin(40)) unknown.push_back(u);
    Fields all = f;
    all.insert(all.end(), unknown.begin(), unknown.end());
    shuffle(all, rng);
    Fields unknown_in_order;
    for (const auto& p : all)
      if (std::find(unknown.begin(), unknown.end(), p) != unknown.end()) unknown_in_order.push_back(p);
    const std::string json = object(all);
    E got;
    ASSERT_NO_THROW(got = odm::from_bson<E>(odm::Document::from_json(json))) << json;
    EXPECT_EQ(got.a, expected.a) << json;
    EXPECT_EQ(got.b, expected.b) << json;
    EXPECT_EQ(got.n, expected.n) << json;
    EXPECT_EQ(got.c, expected.c) << json;
    ASSERT_EQ(got.extra.fields().to_canonical_json(), odm_test::canonical(object(unknown_in_order))) << json;
    // Encoding: the kept fields where the member is declared.
    std::vector<std::string> members{"a", "b", "n", "c"};
    std::vector<std::string> want;
    want.insert(want.end(), members.begin(), members.begin() + extra_position);
    for (const auto& u : unknown_in_order) want.push_back(u.first);
    want.insert(want.end(), members.begin() + extra_position, members.end());
    const odm::Document written = odm::to_bson(got);
    EXPECT_EQ(keys_of(written), want) << json;
    const E again = odm::from_bson<E>(written);
    EXPECT_TRUE(again == got) << written.to_canonical_json();
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Adversary27Decode, ExtraAtEachPositionWithShuffledAndUnknownFields) {
  const unsigned seed = base_seed(27005);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  extra_case<ExFirst>(rng, 0);
  extra_case<ExMid>(rng, 2);
  extra_case<ExLast>(rng, 4);
}

/// Structs with an Extra nested in vectors, maps, optionals, shuffled at every level.
TEST(Adversary27Decode, NestedExtrasKeepTheirOwnUnknownFields) {
  const unsigned seed = base_seed(27006);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < 150; ++round) {
    // Each struct: its 4 members, plus unknown fields u<k> with unique values.
    auto member_fields = [&](std::string& a, std::string& b, std::int32_t& n, std::string& c, Fields& unknown) {
      a = val.text();
      b = val.text();
      n = val.number();
      c = val.text();
      Fields f{{"a", js(a)}, {"b", js(b)}, {"n", i32(n)}, {"c", js(c)}};
      const std::size_t count = val.below(4);
      for (std::size_t i = 0; i < count; ++i) f.emplace_back("u" + std::to_string(i), js(val.text()));
      if (val.coin(30)) f.emplace_back("extra", js(val.text()));
      shuffle(f, rng);
      for (const auto& p : f)
        if (p.first != "a" && p.first != "b" && p.first != "n" && p.first != "c") unknown.push_back(p);
      return object(f);
    };
    ExHolder expected;
    expected.id = val.number();
    Fields top{{"_id", i64(expected.id)}};
    std::vector<std::string> mids;
    std::vector<Fields> mid_unknown;
    const std::size_t count = val.below(4);
    for (std::size_t i = 0; i < count; ++i) {
      ExMid m;
      mid_unknown.emplace_back();
      mids.push_back(member_fields(m.a, m.b, m.n, m.c, mid_unknown.back()));
      expected.mids.push_back(std::move(m));
    }
    top.emplace_back("mids", array(mids));
    Fields first_unknown;
    top.emplace_back("first", member_fields(expected.first.a, expected.first.b, expected.first.n, expected.first.c,
                                            first_unknown));
    Fields last_unknown;
    if (val.coin()) {
      expected.last.emplace();
      top.emplace_back("last",
                       member_fields(expected.last->a, expected.last->b, expected.last->n, expected.last->c, last_unknown));
    }
    Fields by;
    Fields by_unknown;
    if (val.coin()) {
      ExMid& m = expected.by["k"];
      by.emplace_back("k", member_fields(m.a, m.b, m.n, m.c, by_unknown));
    }
    top.emplace_back("by", object(by));
    expected.a = val.text();
    top.emplace_back("a", js(expected.a));
    Fields top_unknown{{"zz", i32(1)}, {"first2", js("f")}, {"mids.0", js("dotted")}};
    top.insert(top.end(), top_unknown.begin(), top_unknown.end());
    shuffle(top, rng);
    Fields top_unknown_in_order;
    for (const auto& p : top)
      if (std::find(top_unknown.begin(), top_unknown.end(), p) != top_unknown.end()) top_unknown_in_order.push_back(p);
    const std::string json = object(top);
    ExHolder got;
    ASSERT_NO_THROW(got = odm::from_bson<ExHolder>(odm::Document::from_json(json))) << json;
    EXPECT_EQ(got.id, expected.id);
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.extra.fields().to_canonical_json(), odm_test::canonical(object(top_unknown_in_order))) << json;
    ASSERT_EQ(got.mids.size(), expected.mids.size()) << json;
    for (std::size_t i = 0; i < got.mids.size(); ++i) {
      EXPECT_EQ(got.mids[i].a, expected.mids[i].a) << json;
      EXPECT_EQ(got.mids[i].b, expected.mids[i].b) << json;
      EXPECT_EQ(got.mids[i].n, expected.mids[i].n) << json;
      EXPECT_EQ(got.mids[i].c, expected.mids[i].c) << json;
      EXPECT_EQ(got.mids[i].extra.fields().to_canonical_json(), odm_test::canonical(object(mid_unknown[i]))) << json;
    }
    EXPECT_EQ(got.first.a, expected.first.a);
    EXPECT_EQ(got.first.b, expected.first.b);
    EXPECT_EQ(got.first.n, expected.first.n);
    EXPECT_EQ(got.first.c, expected.first.c);
    EXPECT_EQ(got.first.extra.fields().to_canonical_json(), odm_test::canonical(object(first_unknown))) << json;
    ASSERT_EQ(got.last.has_value(), expected.last.has_value()) << json;
    if (got.last) {
      EXPECT_EQ(got.last->a, expected.last->a);
      EXPECT_EQ(got.last->c, expected.last->c);
      EXPECT_EQ(got.last->n, expected.last->n);
      EXPECT_EQ(got.last->extra.fields().to_canonical_json(), odm_test::canonical(object(last_unknown))) << json;
    }
    ASSERT_EQ(got.by.size(), expected.by.size()) << json;
    if (!got.by.empty()) {
      EXPECT_EQ(got.by.at("k").b, expected.by.at("k").b);
      EXPECT_EQ(got.by.at("k").extra.fields().to_canonical_json(), odm_test::canonical(object(by_unknown))) << json;
    }
    EXPECT_TRUE(odm::from_bson<ExHolder>(odm::to_bson(got)) == got) << json;
    if (HasFailure()) return;
  }
}

/// Renamed members among members of the same type, every name present or not, in a random
/// order, with unknown fields around: the old name's value when the document has it, else
/// the new one's, else the initializer (README, "Renaming a field while both versions
/// run"). For a rename whose old name odm no longer writes (RenamedFrom's
/// writes_previous_name = false, record.hpp/codec.cpp: "the truth ... the old one while odm
/// writes it, else the new one"), the new name's value when present, else the old one's.
TEST(Adversary27Decode, RenamedMembersAmongSameTypeMembersInRandomOrder) {
  const unsigned seed = base_seed(27007);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < 2000; ++round) {
    Ren expected;
    Fields f;
    Fields unknown;
    expected.id = val.number();
    f.emplace_back("_id", i64(expected.id));
    // a: from old_a, truth the old name.
    const unsigned ca = rng() % 4;  // 0 none, 1 new, 2 old, 3 both
    const std::string a_new = val.text(), a_old = val.text();
    if (ca & 1) f.emplace_back("a", js(a_new));
    if (ca & 2) f.emplace_back("old_a", js(a_old));
    expected.a = (ca & 2) ? a_old : (ca & 1) ? a_new : "a0";
    // b: from old_b, not written: truth the new name.
    const unsigned cb = rng() % 4;
    const std::string b_new = val.text(), b_old = val.text();
    if (cb & 1) f.emplace_back("b", js(b_new));
    if (cb & 2) f.emplace_back("old_b", js(b_old));
    expected.b = (cb & 1) ? b_new : (cb & 2) ? b_old : "b0";
    // c, d: plain.
    if (val.coin(70)) {
      expected.c = val.text();
      f.emplace_back("c", js(expected.c));
    }
    if (val.coin(70)) {
      expected.d = val.text();
      f.emplace_back("d", js(expected.d));
    }
    const unsigned cn = rng() % 4;
    const std::int32_t n_new = val.number(), n_old = val.number();
    if (cn & 1) f.emplace_back("n", i32(n_new));
    if (cn & 2) f.emplace_back("old_n", i32(n_old));
    expected.n = (cn & 2) ? n_old : (cn & 1) ? n_new : -5;
    const unsigned co = rng() % 4;
    const bool o_new_null = val.coin(30), o_old_null = val.coin(30);
    const std::string o_new = val.text(), o_old = val.text();
    if (co & 1) f.emplace_back("o", o_new_null ? "null" : js(o_new));
    if (co & 2) f.emplace_back("old_o", o_old_null ? "null" : js(o_old));
    if (co & 2)
      expected.o = o_old_null ? std::nullopt : std::optional<std::string>(o_old);
    else if (co & 1)
      expected.o = o_new_null ? std::nullopt : std::optional<std::string>(o_new);
    for (const char* u : {"extra", "old", "old_c", "a_old", "zz", "e"})
      if (val.coin(25)) {
        unknown.emplace_back(u, js(val.text()));
        f.push_back(unknown.back());
      }
    shuffle(f, rng);
    Fields unknown_in_order;
    for (const auto& p : f)
      if (std::find(unknown.begin(), unknown.end(), p) != unknown.end()) unknown_in_order.push_back(p);
    const std::string json = object(f);
    Ren got;
    ASSERT_NO_THROW(got = odm::from_bson<Ren>(odm::Document::from_json(json))) << json;
    EXPECT_EQ(got.a, expected.a) << json;
    EXPECT_EQ(got.b, expected.b) << json;
    EXPECT_EQ(got.c, expected.c) << json;
    EXPECT_EQ(got.d, expected.d) << json;
    EXPECT_EQ(got.n, expected.n) << json;
    EXPECT_EQ(got.o, expected.o) << json;
    EXPECT_EQ(got.extra.fields().to_canonical_json(), odm_test::canonical(object(unknown_in_order))) << json;
    // What odm writes reads back, shuffled too.
    const odm::Document written = odm::to_bson(got);
    const Ren again = odm::from_bson<Ren>(shuffled(written, rng));
    EXPECT_EQ(again.a, got.a);
    EXPECT_EQ(again.b, got.b);
    EXPECT_EQ(again.c, got.c);
    EXPECT_EQ(again.n, got.n);
    EXPECT_EQ(again.o, got.o);
    if (HasFailure()) return;
  }
}

/// A renamed member of a struct in a vector, beside a same-named member of the holder.
TEST(Adversary27Decode, RenamedMembersNestedInShuffledVectors) {
  const unsigned seed = base_seed(27008);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  auto leaf = [&](RenLeaf& out) {
    Fields f;
    const unsigned cp = rng() % 4;
    const std::string p_new = val.text(), q_old = val.text();
    if (cp & 1) f.emplace_back("p", js(p_new));
    if (cp & 2) f.emplace_back("q", js(q_old));
    out.p = (cp & 2) ? q_old : (cp & 1) ? p_new : "p0";
    if (val.coin()) {
      out.r = val.text();
      f.emplace_back("r", js(out.r));
    }
    if (val.coin()) f.emplace_back("junk", js(val.text()));
    shuffle(f, rng);
    return object(f);
  };
  for (int round = 0; round < 500; ++round) {
    RenHolder expected;
    expected.id = val.number();
    Fields f{{"_id", i64(expected.id)}};
    const unsigned cl = rng() % 4;
    std::vector<std::string> list_new, list_old;
    std::vector<RenLeaf> leaves_new, leaves_old;
    for (std::size_t i = 0, n = val.below(3); i < n; ++i) {
      leaves_new.emplace_back();
      list_new.push_back(leaf(leaves_new.back()));
    }
    for (std::size_t i = 0, n = val.below(3); i < n; ++i) {
      leaves_old.emplace_back();
      list_old.push_back(leaf(leaves_old.back()));
    }
    if (cl & 1) f.emplace_back("list", array(list_new));
    if (cl & 2) f.emplace_back("old_list", array(list_old));
    expected.list = (cl & 2) ? leaves_old : (cl & 1) ? leaves_new : std::vector<RenLeaf>{};
    if (val.coin()) f.emplace_back("one", leaf(expected.one));
    if (val.coin()) {
      expected.p = val.text();
      f.emplace_back("p", js(expected.p));
    }
    if (val.coin()) f.emplace_back("q", js("holder has no q"));
    shuffle(f, rng);
    const std::string json = object(f);
    RenHolder got;
    ASSERT_NO_THROW(got = odm::from_bson<RenHolder>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == expected) << json << "\ngot:      " << odm::to_json(got)
                                 << "\nexpected: " << odm::to_json(expected);
  }
}

/// 81 members (string, int32, optional string in turn), a random subset present in a random
/// order: each present field in its member, each absent member its initializer; the two
/// required ones missing are named.
TEST(Adversary27Decode, MoreThan64MembersInRandomOrder) {
  const unsigned seed = base_seed(27009);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < 400; ++round) {
    Big expected;
    Fields f;
    int index = 0;
    boost::pfr::for_each_field(expected, [&](auto& member) {
      using M = std::remove_cvref_t<decltype(member)>;
      const std::string key = "m" + std::to_string(index);
      const bool required = index == 66 || index == 3;
      if (required || val.coin(60)) {
        if constexpr (std::is_same_v<M, std::string>) {
          member = val.text();
          f.emplace_back(key, js(member));
        } else if constexpr (std::is_same_v<M, std::int32_t>) {
          member = val.number();
          f.emplace_back(key, i32(member));
        } else {
          if (val.coin(20)) {
            member = std::nullopt;
            f.emplace_back(key, "null");
          } else {
            member = val.text();
            f.emplace_back(key, js(*member));
          }
        }
      }
      ++index;
    });
    ASSERT_EQ(index, big_size);
    if (val.coin(30)) f.emplace_back("m81", js("unknown"));
    shuffle(f, rng);
    const std::string json = object(f);
    Big got;
    ASSERT_NO_THROW(got = odm::from_bson<Big>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == expected) << json << "\ngot:      " << odm::to_json(got)
                                 << "\nexpected: " << odm::to_json(expected);
    ASSERT_TRUE(odm::from_bson<Big>(shuffled(odm::to_bson(got), rng)) == got);
    // Drop a required one.
    const std::string dropped = val.coin() ? "m66" : "m3";
    Fields without;
    for (const auto& p : f)
      if (p.first != dropped) without.push_back(p);
    const auto [path, reason] = failure<Big>(object(without));
    EXPECT_EQ(path, dropped) << object(without);
    EXPECT_EQ(reason, "missing required field");
    // Write one present field twice, at a random place.
    const auto& twice = f[rng() % f.size()];
    Fields dup = f;
    dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(rng() % (dup.size() + 1)), twice);
    if (twice.first != "m81") {
      const auto [p2, r2] = failure<Big>(object(dup));
      EXPECT_EQ(p2, twice.first) << object(dup);
      EXPECT_EQ(r2, "field appears twice in the document");
    }
  }
}

/// Members of different sizes and alignments, in a random order.
TEST(Adversary27Decode, MembersOfEveryAlignmentInRandomOrder) {
  const unsigned seed = base_seed(27010);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < 1000; ++round) {
    Aligned e;
    e.b0 = val.coin();
    e.d0 = val.number() + 0.25;
    e.c0 = static_cast<std::int8_t>(val.number() % 127);
    e.ad = {val.number() + 0.5, -1.0 * val.number(), 1e300};
    e.h0 = static_cast<std::int16_t>(val.number() % 32000);
    e.l0 = static_cast<std::int64_t>(val.number()) << 33;
    e.b1 = !e.b0;
    e.ac = {static_cast<std::int8_t>(-(val.number() % 100)), 0, 127};
    e.d1 = -0.125 * val.number();
    e.c1 = static_cast<std::int8_t>(-(val.number() % 128));
    e.s = val.text();
    e.h1 = static_cast<std::int16_t>(-(val.number() % 32000));
    e.as = {static_cast<std::int64_t>(val.number()) << 40, -7};
    Fields f{{"b0", e.b0 ? "true" : "false"},
             {"d0", dbl(e.d0)},
             {"c0", i32(e.c0)},
             {"ad", array({dbl(e.ad[0]), dbl(e.ad[1]), dbl(e.ad[2])})},
             {"h0", i32(e.h0)},
             {"l0", i64(e.l0)},
             {"b1", e.b1 ? "true" : "false"},
             {"ac", array({i32(e.ac[0]), i32(e.ac[1]), i32(e.ac[2])})},
             {"d1", dbl(e.d1)},
             {"c1", i32(e.c1)},
             {"s", js(e.s)},
             {"h1", i32(e.h1)},
             {"as", array({i64(e.as[0]), i64(e.as[1])})}};
    shuffle(f, rng);
    const std::string json = object(f);
    Aligned got;
    ASSERT_NO_THROW(got = odm::from_bson<Aligned>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == e) << json << "\ngot: " << odm::to_json(got);
    ASSERT_TRUE(odm::from_bson<Aligned>(odm::to_bson(e)) == e);
  }
}

/// Members with initializers and when_absent = initial_value: any subset in any order, the
/// absent ones keep their initializers (a struct member's is its initializer too, not a
/// value-initialized struct).
TEST(Adversary27Decode, DefaultInitializersOfAbsentMembersInAnyOrder) {
  const unsigned seed = base_seed(27011);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < 1000; ++round) {
    Defaults e;
    Fields f;
    if (val.coin()) f.emplace_back("a", js(e.a = val.text()));
    if (val.coin()) f.emplace_back("n", i32(e.n = val.number()));
    if (val.coin()) f.emplace_back("b", js(e.b = val.text()));
    if (val.coin()) {
      e.tags = {val.text()};
      f.emplace_back("tags", array({js(e.tags[0])}));
    }
    if (val.coin()) {
      e.pair = Pair{val.text(), val.text()};
      f.emplace_back("pair", val.coin() ? object({{"x", js(e.pair.x)}, {"y", js(e.pair.y)}})
                                        : object({{"y", js(e.pair.y)}, {"x", js(e.pair.x)}}));
    }
    if (val.coin()) {
      if (val.coin()) {
        e.o = std::nullopt;
        f.emplace_back("o", "null");
      } else {
        e.o = val.text();
        f.emplace_back("o", js(*e.o));
      }
    }
    if (val.coin()) {
      e.none = val.text();
      f.emplace_back("none", js(*e.none));
    }
    if (val.coin()) {
      e.d = val.number() + 0.5;
      f.emplace_back("d", dbl(e.d));
    }
    if (val.coin()) f.emplace_back("c", js(e.c = val.text()));
    if (val.coin()) f.emplace_back("unknown", js("u"));
    shuffle(f, rng);
    const std::string json = object(f);
    Defaults got;
    ASSERT_NO_THROW(got = odm::from_bson<Defaults>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == e) << json << "\ngot: " << odm::to_json(got) << "\nexpected: " << odm::to_json(e);
  }
}

/// A variant of two structs, picked by their own fields in any order.
TEST(Adversary27Decode, VariantStructAlternativesInAnyOrder) {
  const unsigned seed = base_seed(27012);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  auto alternative = [&](std::variant<VA, VB>& out) {
    Fields f;
    if (val.coin()) {
      VA a{val.text(), val.text()};
      f = {{"a", js(a.a)}, {"b", js(a.b)}};
      out = a;
    } else {
      VB b{val.text(), val.number(), val.text()};
      f = {{"b", js(b.b)}, {"c", i32(b.c)}, {"a", js(b.a)}};
      out = b;
    }
    shuffle(f, rng);
    return object(f);
  };
  for (int round = 0; round < 500; ++round) {
    WithVariant e;
    Fields f{{"v", alternative(e.v)}, {"a", js(e.a = val.text())}};
    std::vector<std::string> items;
    for (std::size_t i = 0, n = val.below(4); i < n; ++i) {
      e.vs.emplace_back();
      items.push_back(alternative(e.vs.back()));
    }
    f.emplace_back("vs", array(items));
    shuffle(f, rng);
    const std::string json = object(f);
    WithVariant got;
    ASSERT_NO_THROW(got = odm::from_bson<WithVariant>(odm::Document::from_json(json))) << json;
    ASSERT_TRUE(got == e) << json << "\ngot: " << odm::to_json(got);
  }
}

/// Decoding into an object that is reused: a from_bson result never depends on an earlier
/// decode of another struct sharing member types (each decode starts from a fresh object),
/// also when the earlier one threw half-way.
TEST(Adversary27Decode, AFailedDecodeLeavesNothingForTheNextOne) {
  // A failure in a Leaf after some members were read, then a good one.
  EXPECT_EQ(failure<Leaf>(R"({"b": "B", "zz_a": "A", "n": "bad", "_id": 1, "tags": []})").first, "n");
  const Leaf l = odm::from_bson<Leaf>(odm::Document::from_json(R"({"tags": [], "n": 2, "_id": 1, "b": "B2", "zz_a": "A2"})"));
  EXPECT_EQ(l.a, "A2");
  EXPECT_EQ(l.b, "B2");
  EXPECT_EQ(l.n, 2);
  EXPECT_EQ(l.id, 1);
  EXPECT_EQ(l.c, std::nullopt);
  EXPECT_TRUE(l.tags.empty());
  // "_id" (at the top) and "zz_a": the stored names; the member names are unknown fields
  // (ignored).
  const Leaf m = odm::from_bson<Leaf>(odm::Document::from_json(
      R"({"a": "member name", "tags": ["t"], "n": 3, "id": 9, "b": "B", "zz_a": "stored", "_id": 4})"));
  EXPECT_EQ(m.a, "stored");
  EXPECT_EQ(m.id, 4);
  EXPECT_EQ(m.tags, std::vector<std::string>{"t"});
  // At the top "id" is "_id": a field "id" is unknown there.
  EXPECT_EQ(failure<Top>(R"({"id": 1})"), std::make_pair(std::string("_id"), std::string("missing required field")));
  // Inside an embedded document it stays "id": "_id" is unknown there.
  EXPECT_EQ(failure<Mid>(R"({"first": {"_id": 1, "zz_a": "a", "b": "b", "n": 1, "tags": []}})").first, "first.id");
}

}  // namespace
