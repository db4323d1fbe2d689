// Adversarial probes (adv28) of the field lookup of out-of-order decoding after commit
// 8cc9ec1: names sorted by (length, bytes) and found by a binary search over the lengths,
// then a scan of the names of the key's length (first byte, then memcmp)
// (odm::detail::find_name, include/odm/bson/record.hpp), and the members' addresses taken
// once per document (RecordLayout::addresses, odm::detail::decode_unordered in
// odm/bson/codec.cpp). The same lookup serves the shape test of a struct alternative of a
// std::variant (variant_shape<T>::fits).
//
// What is asserted is the documented behaviour (README, "Mapping", "Field names",
// "Decoding", "Models that change"): fields may arrive in any order and each lands in the
// member it names; unknown fields are ignored (a strict model refuses the first one, naming
// it) or kept by an odm::Extra member in document order; a duplicate is refused naming it;
// a missing required member is refused naming it; an absent optional/defaulted member keeps
// its initializer; a renamed member reads its old name's value when present, else the new
// one's; `id` is `_id` at the top level only; errors name the dotted path. Expected values
// are built by hand, never taken from the decoder.
//
// Seeds: every randomized test prints its seed (SCOPED_TRACE); ODM_ADVERSARY28_SEED
// overrides the base seed. Boost.PFR 1.81 reflects at most 100 members, so the largest
// struct here has 100 (not 129).

#include "test_support.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>

#include <boost/pfr/core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace adversary_28 {

// ---- documents built field by field (any key bytes) ---------------------------------------------

using Fields = std::vector<std::pair<std::string, std::string>>;  // key, Extended JSON value

inline std::string i32(std::int32_t v) { return R"({"$numberInt": ")" + std::to_string(v) + R"("})"; }
inline std::string i64(std::int64_t v) { return R"({"$numberLong": ")" + std::to_string(v) + R"("})"; }
inline std::string js(const std::string& s) { return "\"" + s + "\""; }  // no characters to escape

/// The document of `fields`, in that order, keys copied byte for byte.
inline odm::Document build(const Fields& fields) {
  odm::Document out;
  for (const auto& [key, value] : fields) {
    const odm::Document holder = odm::Document::from_json("{\"v\": " + value + "}");
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, holder.get(), "v")) << value;
    EXPECT_TRUE(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &it)) << key;
  }
  return out;
}
/// The same as a JSON value (for a sub-document inside another field's value).
inline std::string object(const Fields& fields) { return build(fields).to_canonical_json(); }
inline std::string array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i];
  return out + "]";
}
inline std::string show(const Fields& fields) {
  std::string out = "{";
  for (const auto& [k, v] : fields) out += "\"" + k + "\"(" + std::to_string(k.size()) + "): " + v + ", ";
  return out + "}";
}

inline unsigned base_seed(unsigned fallback) {
  if (const char* s = std::getenv("ODM_ADVERSARY28_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  return fallback;
}

struct Values {
  std::mt19937& rng;
  std::int64_t counter = 0;
  std::string text() { return "t" + std::to_string(++counter) + "_" + std::to_string(rng() % 1000); }
  std::int32_t number() { return static_cast<std::int32_t>(++counter * 11 + static_cast<std::int64_t>(rng() % 7)); }
  bool coin(unsigned percent = 50) { return rng() % 100 < percent; }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : rng() % n; }
};

/// {path(), reason()} of decoding `doc` as T, or {"<no error>", ""}.
template <class T>
std::pair<std::string, std::string> failure(const odm::Document& doc) {
  try {
    (void)odm::from_bson<T>(doc);
  } catch (const odm::DecodeError& e) {
    return {e.path(), e.reason()};
  }
  return {"<no error>", ""};
}
template <class T>
std::pair<std::string, std::string> failure(const Fields& fields) {
  return failure<T>(build(fields));
}
inline std::pair<std::string, std::string> P(std::string a, std::string b) { return {std::move(a), std::move(b)}; }
const std::string kStrict = "unknown field (the model is strict)";
const std::string kTwice = "field appears twice in the document";
const std::string kMissing = "missing required field";

/// An unknown value of a random type (a sub-document naming real members, too).
inline std::string junk(Values& val, const std::string& a_real_name) {
  switch (val.below(4)) {
    case 0: return i32(val.number());
    case 1: return js(val.text());
    case 2: return "{\"" + a_real_name + "\": " + js(val.text()) + "}";
    default: return "[1, \"x\", null]";
  }
}

/// A key like one of `names` but none of them: last byte, first byte or a middle byte
/// changed, a byte added or dropped, or the empty key; not in `taken` (which it joins).
inline std::string lookalike(const std::vector<std::string>& names, std::set<std::string>& taken, Values& val) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string k = names[val.below(names.size())];
    const char letter = static_cast<char>('a' + val.below(26));
    switch (val.below(6)) {
      case 0: k.back() = letter; break;
      case 1: k.front() = letter; break;
      case 2: k[k.size() / 2] = letter; break;
      case 3: k += letter; break;
      case 4: k.pop_back(); break;
      default: k.clear(); break;
    }
    if (taken.insert(k).second) return k;
  }
  ADD_FAILURE() << "no look-alike left";
  return "zzzzzzzzzzzzzzzz";
}

// ---- the generic probe: int32 / string / optional<string> members, any names --------------------

template <class S>
inline constexpr bool has_extra = requires(S s) { s.extra; };

/// `rounds` documents of S (members: std::int32_t and std::string required,
/// std::optional<std::string> absent, null or a value; an odm::Extra member skipped) in a
/// random order, with unknown keys from `pool` (or look-alikes of the names when `pool` is
/// empty) interleaved; then the same document with one field twice, one required field
/// missing, one field of a wrong type; a strict S refuses the first unknown key instead.
template <class S, std::size_t N>
void shuffled_rounds(const std::array<std::string_view, N>& declared, unsigned seed, int rounds,
                     std::vector<std::string> pool = {}) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr bool strict = odm::is_strict<S>;
  std::vector<std::string> names;
  std::size_t extra_index = N;
  boost::pfr::for_each_field(S{}, [&](const auto& m, std::size_t i) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m)>, odm::Extra>)
      extra_index = i;
    else
      names.emplace_back(declared[i]);
  });
  // The names this test uses are the names odm stores (a check of the test itself).
  for (std::size_t i = 0; i < N; ++i)
    if (i != extra_index) {
      ASSERT_EQ(odm::stored_names<S>[i], declared[i]) << i;
    }
  std::mt19937 rng(seed);
  Values val{rng};
  for (int round = 0; round < rounds; ++round) {
    S expected{};
    Fields f;
    std::vector<std::size_t> required;  // positions in f
    std::vector<bool> is_text;          // per entry of f: a string-like member
    boost::pfr::for_each_field(expected, [&](auto& m, std::size_t i) {
      using M = std::remove_cvref_t<decltype(m)>;
      const std::string key(declared[i]);
      if constexpr (std::is_same_v<M, std::int32_t>) {
        m = val.number();
        required.push_back(f.size());
        f.emplace_back(key, i32(m));
        is_text.push_back(false);
      } else if constexpr (std::is_same_v<M, std::string>) {
        m = val.text();
        required.push_back(f.size());
        f.emplace_back(key, js(m));
        is_text.push_back(true);
      } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
        const std::size_t how = val.below(3);
        if (how == 1) {
          f.emplace_back(key, "null");
          is_text.push_back(true);
        } else if (how == 2) {
          m = val.text();
          f.emplace_back(key, js(*m));
          is_text.push_back(true);
        }
      } else {
        static_assert(std::is_same_v<M, odm::Extra>);
      }
    });
    std::set<std::string> taken(names.begin(), names.end());
    Fields unknown;
    if (!strict) {
      const std::size_t count = val.below(9);
      std::vector<std::string> p = pool;
      std::shuffle(p.begin(), p.end(), rng);
      for (std::size_t u = 0; u < count; ++u) {
        std::string key;
        if (pool.empty()) {
          key = lookalike(names, taken, val);
        } else {
          if (u >= p.size()) break;
          key = p[u];
        }
        unknown.emplace_back(key, junk(val, names[val.below(names.size())]));
      }
    }
    // Shuffle the known fields with the unknown ones, remembering which is which.
    std::vector<std::size_t> order(f.size() + unknown.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    Fields all;
    Fields kept;  // the unknown fields in document order
    for (const std::size_t o : order) {
      if (o < f.size()) {
        all.push_back(f[o]);
      } else {
        all.push_back(unknown[o - f.size()]);
        kept.push_back(unknown[o - f.size()]);
      }
    }
    SCOPED_TRACE("round " + std::to_string(round) + ": " + show(all));
    S got{};
    ASSERT_NO_THROW(got = odm::from_bson<S>(build(all)));
    if constexpr (has_extra<S>) {
      EXPECT_EQ(got.extra.fields().to_canonical_json(), build(kept).to_canonical_json());
      got.extra.clear();
    }
    ASSERT_TRUE(got == expected) << "got " << odm::to_json(got) << "\nexpected " << odm::to_json(expected);

    // One known field twice (the copy anywhere): refused, naming it.
    if (!f.empty()) {
      const auto& twice = f[val.below(f.size())];
      Fields dup = all;
      dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(val.below(dup.size() + 1)), twice);
      EXPECT_EQ(failure<S>(dup), P(twice.first, kTwice)) << show(dup);
    }
    // One required field missing: refused, naming it.
    if (!required.empty()) {
      const std::string gone = f[required[val.below(required.size())]].first;
      Fields without;
      for (const auto& p : all)
        if (p.first != gone) without.push_back(p);
      EXPECT_EQ(failure<S>(without), P(gone, kMissing)) << show(without);
    }
    // One field of a type its member cannot hold: refused, naming it.
    if (!f.empty()) {
      const std::size_t w = val.below(f.size());
      Fields wrong = all;
      for (auto& p : wrong)
        if (p.first == f[w].first) p.second = is_text[w] ? i32(1) : js("text");
      const auto [path, reason] = failure<S>(wrong);
      EXPECT_EQ(path, f[w].first) << show(wrong);
      EXPECT_EQ(reason.rfind("expected ", 0), 0U) << reason;
    }
    // A strict model: the first unknown key in document order is named.
    if constexpr (strict) {
      Fields with = all;
      std::vector<std::string> inserted;
      const std::size_t count = 1 + val.below(3);
      for (std::size_t u = 0; u < count; ++u) {
        const std::string key = pool.empty() ? lookalike(names, taken, val) : pool[val.below(pool.size())];
        if (std::find(inserted.begin(), inserted.end(), key) != inserted.end()) continue;
        inserted.push_back(key);
        with.insert(with.begin() + static_cast<std::ptrdiff_t>(val.below(with.size() + 1)),
                    {key, junk(val, names[0])});
      }
      std::string first;
      for (const auto& p : with)
        if (std::find(inserted.begin(), inserted.end(), p.first) != inserted.end()) {
          first = p.first;
          break;
        }
      EXPECT_EQ(failure<S>(with), P(first, kStrict)) << show(with);
    }
  }
}

// ---- names sharing lengths, first bytes and prefixes --------------------------------------------

struct Look {
  std::int32_t m0;                  // a
  std::string m1;                   // b
  std::int32_t m2;                  // ab
  std::string m3;                   // ac
  std::optional<std::string> m4;    // ba
  std::string m5;                   // abc
  std::int32_t m6;                  // abd
  std::optional<std::string> m7;    // acc
  std::int32_t m8;                  // abcd
  std::string m9;                   // abce
  std::int32_t m10;                 // zbcd
  std::optional<std::string> m11;   // abcf
  std::string m12;                  // bbcd
  std::int32_t m13;                 // abcdefghijklmnop
  std::string m14;                  // abcdefghijklmnoq
  std::optional<std::string> m15;   // bbcdefghijklmnop
  friend bool operator==(const Look&, const Look&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(
        odm::rename(&Look::m0, "a"), odm::rename(&Look::m1, "b"), odm::rename(&Look::m2, "ab"),
        odm::rename(&Look::m3, "ac"), odm::rename(&Look::m4, "ba"), odm::rename(&Look::m5, "abc"),
        odm::rename(&Look::m6, "abd"), odm::rename(&Look::m7, "acc"), odm::rename(&Look::m8, "abcd"),
        odm::rename(&Look::m9, "abce"), odm::rename(&Look::m10, "zbcd"), odm::rename(&Look::m11, "abcf"),
        odm::rename(&Look::m12, "bbcd"), odm::rename(&Look::m13, "abcdefghijklmnop"),
        odm::rename(&Look::m14, "abcdefghijklmnoq"), odm::rename(&Look::m15, "bbcdefghijklmnop"));
  };
};
inline constexpr std::array<std::string_view, 16> Look_names{
    "a",    "b",    "ab",   "ac",   "ba",   "abc",  "abd",  "acc",  "abcd", "abce", "zbcd", "abcf",
    "bbcd", "abcdefghijklmnop", "abcdefghijklmnoq", "bbcdefghijklmnop"};

TEST(Adversary28Lookup, NamesSharingLengthFirstByteOrPrefixInRandomOrder) {
  shuffled_rounds<Look>(Look_names, base_seed(28001), 600);
  // And the member names (C++), the empty key and the look-alikes written out: all unknown.
  shuffled_rounds<Look>(Look_names, base_seed(28001) + 1, 300,
                        {"m0", "m1", "", "aa", "c", "ad", "bb", "abb", "abe", "acd", "bbc", "abcc", "abcg", "zbce",
                         "abcde", "abcdefghijklmnoo", "abcdefghijklmnor", "bbcdefghijklmnoq", "Abcd", "abcD",
                         "abcdefghijklmno", "abcdefghijklmnopq", " a", "a "});
}

// ---- names that are not ASCII -------------------------------------------------------------------

struct Uni {
  std::int32_t e1;                 // é      C3 A9
  std::string e2;                  // è      C3 A8
  std::optional<std::string> e3;   // éa     C3 A9 61
  std::int32_t e4;                 // aé     61 C3 A9
  std::string e5;                  // €      E2 82 AC
  std::int32_t e6;                 // 日本   E6 97 A5 E6 9C AC
  std::string e7;                  // 日本語 ... E8 AA 9E
  std::optional<std::string> e8;   // 日本誌 ... E8 AA 8C
  std::int32_t e9;                 // Ω      CE A9
  std::string e10;                 // ü      C3 BC
  friend bool operator==(const Uni&, const Uni&) = default;
  struct odm_model {
    static constexpr auto fields =
        odm::fields(odm::rename(&Uni::e1, "\u00e9"), odm::rename(&Uni::e2, "\u00e8"), odm::rename(&Uni::e3, "\u00e9a"),
                    odm::rename(&Uni::e4, "a\u00e9"), odm::rename(&Uni::e5, "\u20ac"),
                    odm::rename(&Uni::e6, "\u65e5\u672c"), odm::rename(&Uni::e7, "\u65e5\u672c\u8a9e"),
                    odm::rename(&Uni::e8, "\u65e5\u672c\u8a8c"), odm::rename(&Uni::e9, "\u03a9"),
                    odm::rename(&Uni::e10, "\u00fc"));
  };
};
inline constexpr std::array<std::string_view, 10> Uni_names{
    "\u00e9", "\u00e8", "\u00e9a", "a\u00e9", "\u20ac", "\u65e5\u672c", "\u65e5\u672c\u8a9e", "\u65e5\u672c\u8a8c",
    "\u03a9", "\u00fc"};
struct UniStrict {
  std::int32_t e1;
  std::string e2;
  std::optional<std::string> e7;
  std::int32_t e8;
  friend bool operator==(const UniStrict&, const UniStrict&) = default;
  struct odm_model {
    static constexpr bool strict = true;
    static constexpr auto fields =
        odm::fields(odm::rename(&UniStrict::e1, "\u00e9"), odm::rename(&UniStrict::e2, "\u00e8"),
                    odm::rename(&UniStrict::e7, "\u65e5\u672c\u8a9e"),
                    odm::rename(&UniStrict::e8, "\u65e5\u672c\u8a8c"));
  };
};
inline constexpr std::array<std::string_view, 4> UniStrict_names{"\u00e9", "\u00e8", "\u65e5\u672c\u8a9e",
                                                                 "\u65e5\u672c\u8a8c"};

TEST(Adversary28Lookup, NonAsciiNamesSharingLeadBytesInRandomOrder) {
  const std::vector<std::string> pool{"\u00ea", "\u00eb", "\u00e9b", "\u00e8a", "a\u00e8", "b\u00e9", "\u20ad",
                                      "\u20a4", "\u65e5\u672c\u4eba", "\u65e5\u4ed8", "\u65e5\u672c\u8a9f",
                                      "\u65e5\u672ca", "\u65e5", "\u03a8", "\u038f", "\u00fd", "u", "e", "",
                                      "\u00e9\u00e9", "\u65e5\u672c\u8a9e\u8a9e"};
  shuffled_rounds<Uni>(Uni_names, base_seed(28002), 600, pool);
  shuffled_rounds<UniStrict>(UniStrict_names, base_seed(28002) + 1, 300, pool);
}

// ---- long names with a long common prefix -------------------------------------------------------

#define ADV28_X10 "xxxxxxxxxx"
#define ADV28_X50 ADV28_X10 ADV28_X10 ADV28_X10 ADV28_X10 ADV28_X10
#define ADV28_X200 ADV28_X50 ADV28_X50 ADV28_X50 ADV28_X50
struct Long {
  std::int32_t l1;                 // X200 a
  std::string l2;                  // X200 b
  std::optional<std::string> l3;   // X200 ab
  std::int32_t l4;                 // y X200
  std::string l5;                  // X200 X50 a
  std::int32_t l6;                 // x
  std::string l7;                  // X200
  friend bool operator==(const Long&, const Long&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(
        odm::rename(&Long::l1, ADV28_X200 "a"), odm::rename(&Long::l2, ADV28_X200 "b"),
        odm::rename(&Long::l3, ADV28_X200 "ab"), odm::rename(&Long::l4, "y" ADV28_X200),
        odm::rename(&Long::l5, ADV28_X200 ADV28_X50 "a"), odm::rename(&Long::l6, "x"),
        odm::rename(&Long::l7, ADV28_X200));
  };
};
inline constexpr std::array<std::string_view, 7> Long_names{
    ADV28_X200 "a", ADV28_X200 "b", ADV28_X200 "ab", "y" ADV28_X200, ADV28_X200 ADV28_X50 "a", "x", ADV28_X200};

TEST(Adversary28Lookup, LongNamesWithACommonPrefixInRandomOrder) {
  shuffled_rounds<Long>(Long_names, base_seed(28003), 600);
  // Errors on a long name: path() holds the whole name (what() may cut it).
  const Fields f{{ADV28_X200 "b", js("s")}, {"y" ADV28_X200, i32(2)}, {ADV28_X200 ADV28_X50 "a", js("t")},
                 {"x", i32(3)}, {ADV28_X200, js("u")}, {ADV28_X200 "c", i32(9)}};
  EXPECT_EQ(failure<Long>(f), P(ADV28_X200 "a", kMissing));
  Fields twice = f;
  twice.emplace_back(ADV28_X200 "a", i32(1));
  twice.emplace_back(ADV28_X200 "b", js("again"));
  EXPECT_EQ(failure<Long>(twice), P(ADV28_X200 "b", kTwice));
  Fields wrong = f;
  wrong.emplace_back(ADV28_X200 "a", js("not a number"));
  EXPECT_EQ(failure<Long>(wrong).first, ADV28_X200 "a");
}

// ---- 63, 64, 65 and 100 members (generated: 3 to 5 bytes, first byte a/b/c, the rest 'z' and two letters) --

struct S63 {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  friend bool operator==(const S63&, const S63&) = default;
};
inline constexpr std::array<std::string_view, 63> S63_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "bzbo", "bzzbp",
    "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc", "azcd",
    "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck"
};
struct S64 {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  std::int32_t acl = -7;
  friend bool operator==(const S64&, const S64&) = default;
};
inline constexpr std::array<std::string_view, 64> S64_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "bzbo", "bzzbp",
    "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc", "azcd",
    "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck", "acl"
};
struct S65 {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  std::int32_t acl = -7;
  std::string azcm;
  friend bool operator==(const S65&, const S65&) = default;
};
inline constexpr std::array<std::string_view, 65> S65_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "bzbo", "bzzbp",
    "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc", "azcd",
    "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck", "acl", "azcm"
};
struct S100 {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  std::int32_t acl = -7;
  std::string azcm;
  std::optional<std::string> azzcn;
  std::int32_t bco = -7;
  std::string bzcp;
  std::optional<std::string> bzzcq;
  std::int32_t ccr = -7;
  std::string czcs;
  std::optional<std::string> czzct;
  std::int32_t acu = -7;
  std::string azcv;
  std::optional<std::string> azzcw;
  std::int32_t bcx = -7;
  std::string bzcy;
  std::optional<std::string> bzzcz;
  std::int32_t cda = -7;
  std::string czdb;
  std::optional<std::string> czzdc;
  std::int32_t add = -7;
  std::string azde;
  std::optional<std::string> azzdf;
  std::int32_t bdg = -7;
  std::string bzdh;
  std::optional<std::string> bzzdi;
  std::int32_t cdj = -7;
  std::string czdk;
  std::optional<std::string> czzdl;
  std::int32_t adm = -7;
  std::string azdn;
  std::optional<std::string> azzdo;
  std::int32_t bdp = -7;
  std::string bzdq;
  std::optional<std::string> bzzdr;
  std::int32_t cds = -7;
  std::string czdt;
  std::optional<std::string> czzdu;
  std::int32_t adv = -7;
  friend bool operator==(const S100&, const S100&) = default;
};
inline constexpr std::array<std::string_view, 100> S100_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "bzbo", "bzzbp",
    "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc", "azcd",
    "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck", "acl", "azcm", "azzcn", "bco", "bzcp", "bzzcq", "ccr",
    "czcs", "czzct", "acu", "azcv", "azzcw", "bcx", "bzcy", "bzzcz", "cda", "czdb", "czzdc", "add", "azde", "azzdf",
    "bdg", "bzdh", "bzzdi", "cdj", "czdk", "czzdl", "adm", "azdn", "azzdo", "bdp", "bzdq", "bzzdr", "cds", "czdt",
    "czzdu", "adv"
};
struct S65Strict {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  std::int32_t acl = -7;
  std::string azcm;
  friend bool operator==(const S65Strict&, const S65Strict&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
inline constexpr std::array<std::string_view, 65> S65Strict_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "bzbo", "bzzbp",
    "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc", "azcd",
    "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck", "acl", "azcm"
};
struct S65Extra {
  std::int32_t aaa = -7;
  std::string azab;
  std::optional<std::string> azzac;
  std::int32_t bad = -7;
  std::string bzae;
  std::optional<std::string> bzzaf;
  std::int32_t cag = -7;
  std::string czah;
  std::optional<std::string> czzai;
  std::int32_t aaj = -7;
  std::string azak;
  std::optional<std::string> azzal;
  std::int32_t bam = -7;
  std::string bzan;
  std::optional<std::string> bzzao;
  std::int32_t cap = -7;
  std::string czaq;
  std::optional<std::string> czzar;
  std::int32_t aas = -7;
  std::string azat;
  std::optional<std::string> azzau;
  std::int32_t bav = -7;
  std::string bzaw;
  std::optional<std::string> bzzax;
  std::int32_t cay = -7;
  std::string czaz;
  std::optional<std::string> czzba;
  std::int32_t abb = -7;
  std::string azbc;
  std::optional<std::string> azzbd;
  std::int32_t bbe = -7;
  std::string bzbf;
  std::optional<std::string> bzzbg;
  std::int32_t cbh = -7;
  std::string czbi;
  std::optional<std::string> czzbj;
  std::int32_t abk = -7;
  std::string azbl;
  std::optional<std::string> azzbm;
  std::int32_t bbn = -7;
  odm::Extra extra;
  std::string bzbo;
  std::optional<std::string> bzzbp;
  std::int32_t cbq = -7;
  std::string czbr;
  std::optional<std::string> czzbs;
  std::int32_t abt = -7;
  std::string azbu;
  std::optional<std::string> azzbv;
  std::int32_t bbw = -7;
  std::string bzbx;
  std::optional<std::string> bzzby;
  std::int32_t cbz = -7;
  std::string czca;
  std::optional<std::string> czzcb;
  std::int32_t acc = -7;
  std::string azcd;
  std::optional<std::string> azzce;
  std::int32_t bcf = -7;
  std::string bzcg;
  std::optional<std::string> bzzch;
  std::int32_t cci = -7;
  std::string czcj;
  std::optional<std::string> czzck;
  std::int32_t acl = -7;
  friend bool operator==(const S65Extra&, const S65Extra&) = default;
};
inline constexpr std::array<std::string_view, 65> S65Extra_names{
    "aaa", "azab", "azzac", "bad", "bzae", "bzzaf", "cag", "czah", "czzai", "aaj", "azak", "azzal", "bam", "bzan",
    "bzzao", "cap", "czaq", "czzar", "aas", "azat", "azzau", "bav", "bzaw", "bzzax", "cay", "czaz", "czzba", "abb",
    "azbc", "azzbd", "bbe", "bzbf", "bzzbg", "cbh", "czbi", "czzbj", "abk", "azbl", "azzbm", "bbn", "extra", "bzbo",
    "bzzbp", "cbq", "czbr", "czzbs", "abt", "azbu", "azzbv", "bbw", "bzbx", "bzzby", "cbz", "czca", "czzcb", "acc",
    "azcd", "azzce", "bcf", "bzcg", "bzzch", "cci", "czcj", "czzck", "acl"
};

struct One {
  std::int32_t q;
  friend bool operator==(const One&, const One&) = default;
};
inline constexpr std::array<std::string_view, 1> One_names{"q"};
struct OneStrict {
  std::string q;
  friend bool operator==(const OneStrict&, const OneStrict&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
inline constexpr std::array<std::string_view, 1> OneStrict_names{"q"};

TEST(Adversary28Lookup, OneMember) {
  shuffled_rounds<One>(One_names, base_seed(28004), 200, {"", "r", "p", "Q", "qq", "q ", "\u00e9", "qr", "a"});
  shuffled_rounds<OneStrict>(OneStrict_names, base_seed(28004) + 1, 200, {"", "r", "qq", "Q"});
  EXPECT_EQ(failure<One>(Fields{{"qq", i32(1)}, {"r", i32(2)}, {"", i32(3)}}), P("q", kMissing));
  EXPECT_EQ(odm::from_bson<One>(build({{"r", i32(2)}, {"qq", i32(1)}, {"q", i32(7)}, {"", i32(3)}})).q, 7);
}

TEST(Adversary28Lookup, SixtyThreeMembers) { shuffled_rounds<S63>(S63_names, base_seed(28005), 300); }
TEST(Adversary28Lookup, SixtyFourMembers) { shuffled_rounds<S64>(S64_names, base_seed(28006), 300); }
TEST(Adversary28Lookup, SixtyFiveMembers) { shuffled_rounds<S65>(S65_names, base_seed(28007), 300); }
TEST(Adversary28Lookup, AHundredMembers) { shuffled_rounds<S100>(S100_names, base_seed(28008), 300); }
TEST(Adversary28Lookup, SixtyFiveMembersStrict) {
  shuffled_rounds<S65Strict>(S65Strict_names, base_seed(28009), 300);
}
TEST(Adversary28Lookup, SixtyFiveMembersWithExtraAtForty) {
  shuffled_rounds<S65Extra>(S65Extra_names, base_seed(28010), 300);
  // A field named like the Extra member is no member's field: kept (look-alikes of "extra" too).
  Fields f;
  for (std::size_t i = 0; i < S65Extra_names.size(); ++i)
    if (const std::size_t k = i < 40 ? i : i - 1; i != 40)  // k: the generator's type index
      f.emplace_back(std::string(S65Extra_names[i]), k % 3 == 2 ? "null" : (k % 3 == 0 ? i32(1) : js("s")));
  std::reverse(f.begin(), f.end());
  f.insert(f.begin() + 20, {"extra", i32(7)});
  f.insert(f.begin() + 5, {"extrb", i32(8)});
  const S65Extra got = odm::from_bson<S65Extra>(build(f));
  EXPECT_EQ(got.extra.fields().to_canonical_json(), build({{"extrb", i32(8)}, {"extra", i32(7)}}).to_canonical_json());
}

// ---- renamed members whose old names look like other names --------------------------------------

struct Ren {
  std::int32_t abc;               // renamed_from "abd"
  std::int32_t abe;
  std::string xy;                 // renamed_from "xw"
  std::string xz;
  std::optional<std::string> pq;  // renamed_from "pr"
  std::string ps;
  friend bool operator==(const Ren&, const Ren&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Ren::abc>("abd"),
                                               odm::renamed_from<&Ren::xy>("xw"), odm::renamed_from<&Ren::pq>("pr"));
  };
};

TEST(Adversary28Lookup, RenamedFromNamesOfTheSameLengthAndFirstByte) {
  const unsigned seed = base_seed(28011);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  const std::vector<std::string> pool{"abf", "abb", "ab", "abcd", "xx", "xv", "x", "pp", "pt", "", "abd0", "xwx"};
  for (int round = 0; round < 800; ++round) {
    Ren e;
    Fields f;
    // 0: new name only, 1: old name only, 2: both (the old one's value is the truth), 3: neither.
    const auto pair = [&](const std::string& now, const std::string& old, bool optional, auto make, auto json,
                          auto& member) {
      const std::size_t how = val.below(optional ? 4 : 3);
      if (how == 0 || how == 2) {
        auto v = make();
        f.emplace_back(now, json(v));
        member = v;
      }
      if (how == 1 || how == 2) {
        auto v = make();
        f.emplace_back(old, json(v));
        member = v;
      }
    };
    pair("abc", "abd", false, [&] { return val.number(); }, i32, e.abc);
    pair("xy", "xw", false, [&] { return val.text(); }, js, e.xy);
    pair("pq", "pr", true, [&] { return val.text(); }, js, e.pq);
    e.abe = val.number();
    f.emplace_back("abe", i32(e.abe));
    e.xz = val.text();
    f.emplace_back("xz", js(e.xz));
    e.ps = val.text();
    f.emplace_back("ps", js(e.ps));
    std::vector<std::string> p = pool;
    std::shuffle(p.begin(), p.end(), rng);
    for (std::size_t u = 0, n = val.below(5); u < n; ++u) f.emplace_back(p[u], junk(val, "abc"));
    std::shuffle(f.begin(), f.end(), rng);
    SCOPED_TRACE("round " + std::to_string(round) + ": " + show(f));
    Ren got;
    ASSERT_NO_THROW(got = odm::from_bson<Ren>(build(f)));
    ASSERT_TRUE(got == e) << odm::to_json(got);
    // Either name twice: refused, naming it.
    const auto& twice = f[val.below(f.size())];
    if (std::find(pool.begin(), pool.end(), twice.first) == pool.end()) {
      Fields dup = f;
      dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(val.below(dup.size() + 1)), twice);
      EXPECT_EQ(failure<Ren>(dup), P(twice.first, kTwice)) << show(dup);
    }
    // Neither of a required member's names: refused, naming the new one.
    const bool drop_abc = val.coin();
    Fields without;
    for (const auto& q : f)
      if (drop_abc ? (q.first != "abc" && q.first != "abd") : (q.first != "xy" && q.first != "xw"))
        without.push_back(q);
    EXPECT_EQ(failure<Ren>(without), P(drop_abc ? "abc" : "xy", kMissing)) << show(without);
    // A wrong type under either name (whichever else the document holds): refused, naming it.
    Fields wrong = f;
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < wrong.size(); ++i)
      if (wrong[i].first == "abc" || wrong[i].first == "abd" || wrong[i].first == "xy" || wrong[i].first == "xw")
        candidates.push_back(i);
    auto& bad = wrong[candidates[val.below(candidates.size())]];
    bad.second = bad.first[0] == 'a' ? js("text") : i32(3);
    EXPECT_EQ(failure<Ren>(wrong).first, bad.first) << show(wrong);
  }
}

// ---- many kinds of members, Extra in the middle, nested structs with the outer's names ----------

struct Inner {
  std::string ab;
  std::int32_t ac = 0;
  std::optional<std::string> ad;
  friend bool operator==(const Inner&, const Inner&) = default;
};
struct AltA {
  std::int32_t kx = 0;
  std::string ky;
  friend bool operator==(const AltA&, const AltA&) = default;
};
struct AltB {
  std::int32_t kx = 0;
  std::string kz;
  friend bool operator==(const AltB&, const AltB&) = default;
};
struct Mixed {
  std::int64_t id = 0;  // "_id"
  std::string ab;
  std::optional<std::string> ac;
  std::vector<std::int32_t> ad;
  Inner ae;  // the outer's names again
  odm::Extra extra;
  std::variant<AltA, AltB> af;
  std::vector<Inner> ag;
  std::int32_t ba = 5;  // defaulted
  std::string bb;       // renamed_from "bc"
  std::optional<Inner> bd;
  friend bool operator==(const Mixed&, const Mixed&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::defaulted(&Mixed::ba), odm::renamed_from<&Mixed::bb>("bc"));
  };
};

struct MixedGen {
  Values& val;
  std::mt19937& rng;

  template <class F>
  std::string shuffled_object(Fields f, F&& unknown_keys) {
    for (const std::string& k : unknown_keys)
      if (val.coin(40)) f.emplace_back(k, junk(val, "ab"));
    std::shuffle(f.begin(), f.end(), rng);
    return object(f);
  }
  std::string inner(Inner& in) {
    in.ab = val.text();
    in.ac = val.number();
    Fields f{{"ab", js(in.ab)}, {"ac", i32(in.ac)}};
    if (val.coin()) {
      in.ad = val.text();
      f.emplace_back("ad", js(*in.ad));
    }
    return shuffled_object(f, std::vector<std::string>{"aa", "ae", "a", "abc", "", "_id", "ba"});
  }
  std::string alternative(std::variant<AltA, AltB>& out) {
    const std::int32_t kx = val.number();
    const std::string s = val.text();
    if (val.coin()) {
      out = AltA{kx, s};
      return shuffled_object({{"kx", i32(kx)}, {"ky", js(s)}}, std::vector<std::string>{"kw", "k", "kxx", "Ky"});
    }
    out = AltB{kx, s};
    return shuffled_object({{"kx", i32(kx)}, {"kz", js(s)}}, std::vector<std::string>{"kw", "k", "kzz", "Kz"});
  }
  /// `e` filled and its document's top-level fields (with unknown ones, in a random order);
  /// `kept` gets the unknown ones in that order.
  Fields mixed(Mixed& e, Fields& kept) {
    Fields f;
    e.id = static_cast<std::int64_t>(val.number()) * 1000003;
    f.emplace_back("_id", i64(e.id));
    e.ab = val.text();
    f.emplace_back("ab", js(e.ab));
    if (const std::size_t how = val.below(3); how == 1) {
      f.emplace_back("ac", "null");
    } else if (how == 2) {
      e.ac = val.text();
      f.emplace_back("ac", js(*e.ac));
    }
    std::vector<std::string> ad;
    for (std::size_t i = 0, n = val.below(4); i < n; ++i) {
      e.ad.push_back(val.number());
      ad.push_back(i32(e.ad.back()));
    }
    f.emplace_back("ad", array(ad));
    f.emplace_back("ae", inner(e.ae));
    f.emplace_back("af", alternative(e.af));
    std::vector<std::string> ag;
    for (std::size_t i = 0, n = val.below(4); i < n; ++i) {
      e.ag.emplace_back();
      ag.push_back(inner(e.ag.back()));
    }
    f.emplace_back("ag", array(ag));
    if (val.coin()) {
      e.ba = val.number();
      f.emplace_back("ba", i32(e.ba));
    }
    const std::size_t how = val.below(3);
    if (how != 1) {
      e.bb = val.text();
      f.emplace_back("bb", js(e.bb));
    }
    if (how != 0) {
      e.bb = val.text();  // the old name's value wins
      f.emplace_back("bc", js(e.bb));
    }
    if (val.coin()) {
      e.bd.emplace();
      f.emplace_back("bd", inner(*e.bd));
    } else if (val.coin()) {
      f.emplace_back("bd", "null");
    }
    const std::size_t known = f.size();
    std::vector<std::string> pool{"id", "_ie", "_i", "aa", "ah", "ae0", "abc", "a", "b", "be", "bz", "bcd",
                                  "extra", "", "kx", "ky", "bA", "aB", "\u00e1b"};
    std::shuffle(pool.begin(), pool.end(), rng);
    for (std::size_t u = 0, n = val.below(6); u < n; ++u) f.emplace_back(pool[u], junk(val, "ab"));
    std::vector<std::size_t> order(f.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    Fields out;
    for (const std::size_t o : order) {
      out.push_back(f[o]);
      if (o >= known) kept.push_back(f[o]);
    }
    return out;
  }
};

TEST(Adversary28Lookup, ManyKindsOfMembersWithExtraInTheMiddleInRandomOrder) {
  const unsigned seed = base_seed(28012);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  MixedGen gen{val, rng};
  for (int round = 0; round < 800; ++round) {
    Mixed e;
    Fields kept;
    const Fields f = gen.mixed(e, kept);
    SCOPED_TRACE("round " + std::to_string(round) + ": " + show(f));
    Mixed got;
    ASSERT_NO_THROW(got = odm::from_bson<Mixed>(build(f)));
    EXPECT_EQ(got.extra.fields().to_canonical_json(), build(kept).to_canonical_json());
    // What odm writes reads back the same, Extra included.
    const Mixed again = odm::from_bson<Mixed>(odm::to_bson(got));
    EXPECT_TRUE(again == got) << odm::to_json(again);
    got.extra.clear();
    ASSERT_TRUE(got == e) << "got " << odm::to_json(got) << "\nexpected " << odm::to_json(e);
  }
}

/// A decode that throws part-way (a wrong type somewhere, after other members were read
/// out of order), then a good one: the good one is exactly its document.
TEST(Adversary28Lookup, AFailedDecodeThenAGoodOne) {
  const unsigned seed = base_seed(28013);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Values val{rng};
  MixedGen gen{val, rng};
  for (int round = 0; round < 400; ++round) {
    Mixed bad_e;
    Fields bad_kept;
    Fields bad = gen.mixed(bad_e, bad_kept);
    // The last known field in document order gets a value of a wrong type.
    std::size_t victim = bad.size();
    for (std::size_t i = 0; i < bad.size(); ++i)
      if (std::find(bad_kept.begin(), bad_kept.end(), bad[i]) == bad_kept.end()) victim = i;
    ASSERT_LT(victim, bad.size());
    bad[victim].second = R"({"$date": {"$numberLong": "12"}})";
    SCOPED_TRACE("bad: " + show(bad));
    EXPECT_EQ(failure<Mixed>(bad).first, bad[victim].first);
    Mixed e;
    Fields kept;
    const Fields good = gen.mixed(e, kept);
    SCOPED_TRACE("good: " + show(good));
    Mixed got;
    ASSERT_NO_THROW(got = odm::from_bson<Mixed>(build(good)));
    EXPECT_EQ(got.extra.fields().to_canonical_json(), build(kept).to_canonical_json());
    got.extra.clear();
    ASSERT_TRUE(got == e) << "got " << odm::to_json(got) << "\nexpected " << odm::to_json(e);
  }
}

// ---- inner and outer structs with the same names ------------------------------------------------

struct Rev {
  std::int32_t z;
  std::int32_t y;
  std::int32_t x;
  friend bool operator==(const Rev&, const Rev&) = default;
};
struct Outer {
  std::int32_t x;
  Rev y;
  std::int32_t z;
  friend bool operator==(const Outer&, const Outer&) = default;
};

TEST(Adversary28Lookup, InnerAndOuterWithTheSameNamesInEveryOrder) {
  std::array<int, 3> outer{0, 1, 2};
  int count = 0;
  do {
    std::array<int, 3> inner{0, 1, 2};
    do {
      const Fields in_fields{{"z", i32(10)}, {"y", i32(20)}, {"x", i32(30)}};
      Fields in;
      for (const int i : inner) in.push_back(in_fields[static_cast<std::size_t>(i)]);
      in.insert(in.begin() + count % 4, {"w", i32(-1)});
      const Fields out_fields{{"x", i32(1)}, {"y", object(in)}, {"z", i32(3)}};
      Fields out;
      for (const int o : outer) out.push_back(out_fields[static_cast<std::size_t>(o)]);
      out.insert(out.begin() + (count / 4) % 4, {"xx", i32(-2)});
      SCOPED_TRACE(show(out));
      Outer got{};
      ASSERT_NO_THROW(got = odm::from_bson<Outer>(build(out)));
      EXPECT_EQ(got, (Outer{1, Rev{10, 20, 30}, 3}));
      // The inner document lacking one of its fields: the inner path is named.
      Fields short_in = in;
      short_in.erase(std::find_if(short_in.begin(), short_in.end(), [](const auto& p) { return p.first == "x"; }));
      Fields out2 = out;
      for (auto& p : out2)
        if (p.first == "y") p.second = object(short_in);
      EXPECT_EQ(failure<Outer>(out2), P("y.x", kMissing));
      ++count;
    } while (std::next_permutation(inner.begin(), inner.end()));
  } while (std::next_permutation(outer.begin(), outer.end()));
  EXPECT_EQ(count, 36);
}

// ---- variants of structs that differ only by names of one length --------------------------------

struct SA {
  std::int32_t kx = 0;
  std::string ky;
  friend bool operator==(const SA&, const SA&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct SB {
  std::int32_t kx = 0;
  std::string kz;
  friend bool operator==(const SB&, const SB&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct HoldsAB {
  std::variant<AltA, AltB> v;
  friend bool operator==(const HoldsAB&, const HoldsAB&) = default;
};
struct HoldsStrict {
  std::variant<SA, SB> v;
  friend bool operator==(const HoldsStrict&, const HoldsStrict&) = default;
};

TEST(Adversary28Lookup, VariantOfStructsDifferingOnlyInNamesOfOneLength) {
  const auto doc = [](const Fields& inner) { return build({{"v", object(inner)}}); };
  using V = std::variant<AltA, AltB>;
  // The first alternative that fits is picked; the names decide which fits.
  EXPECT_EQ(odm::from_bson<HoldsAB>(doc({{"kz", js("z")}, {"kx", i32(1)}})).v, V(AltB{1, "z"}));
  EXPECT_EQ(odm::from_bson<HoldsAB>(doc({{"ky", js("y")}, {"kx", i32(2)}})).v, V(AltA{2, "y"}));
  EXPECT_EQ(odm::from_bson<HoldsAB>(doc({{"kz", js("z")}, {"ky", js("y")}, {"kx", i32(3)}})).v, V(AltA{3, "y"}));
  // "ky" of a type AltA cannot hold: AltA does not fit, AltB does.
  EXPECT_EQ(odm::from_bson<HoldsAB>(doc({{"ky", i32(5)}, {"kz", js("z")}, {"kx", i32(4)}})).v, V(AltB{4, "z"}));
  // Look-alikes of the names fit neither.
  for (const char* k : {"kw", "k{", "Ky", "kzz", "k", "", "jz", "lz"}) {
    const auto [path, reason] = failure<HoldsAB>(doc({{k, js("z")}, {"kx", i32(1)}}));
    EXPECT_EQ(path, "v") << k;
    EXPECT_NE(reason.find("none of the variant's 2 alternatives fits"), std::string::npos) << k << ": " << reason;
  }
  using W = std::variant<SA, SB>;
  EXPECT_EQ(odm::from_bson<HoldsStrict>(doc({{"kz", js("z")}, {"kx", i32(1)}})).v, W(SB{1, "z"}));
  EXPECT_EQ(odm::from_bson<HoldsStrict>(doc({{"kx", i32(2)}, {"ky", js("y")}})).v, W(SA{2, "y"}));
  for (const Fields& f : {Fields{{"kz", js("z")}, {"ky", js("y")}, {"kx", i32(3)}},
                          Fields{{"kx", i32(3)}, {"ky", js("y")}, {"kw", js("w")}},
                          Fields{{"kz", js("z")}, {"kx", i32(3)}, {"", js("w")}}}) {
    const auto [path, reason] = failure<HoldsStrict>(doc(f));
    EXPECT_EQ(path, "v") << show(f);
    EXPECT_NE(reason.find("none of the variant's 2 alternatives fits"), std::string::npos) << reason;
  }
}

// ---- the empty key, and a struct with no member ---------------------------------------------------

struct WithExtra {
  std::int32_t a;
  odm::Extra extra;
  std::string b;
  friend bool operator==(const WithExtra&, const WithExtra&) = default;
};

TEST(Adversary28Lookup, TheEmptyKey) {
  EXPECT_EQ(odm::from_bson<One>(build({{"", i32(1)}, {"q", i32(2)}})).q, 2);
  EXPECT_EQ(failure<One>(Fields{{"", i32(1)}}), P("q", kMissing));
  // A strict model refuses it (the path is the empty name).
  EXPECT_EQ(failure<OneStrict>(Fields{{"", js("1")}, {"q", js("2")}}), P("", kStrict));
  EXPECT_EQ(failure<OneStrict>(Fields{{"q", js("2")}, {"", js("1")}}), P("", kStrict));
  // An Extra keeps it, in document order with the others.
  const WithExtra w = odm::from_bson<WithExtra>(
      build({{"b", js("B")}, {"", i32(1)}, {"a", i32(2)}, {"extra", i32(3)}, {"c", i32(4)}}));
  EXPECT_EQ(w.a, 2);
  EXPECT_EQ(w.b, "B");
  EXPECT_EQ(w.extra.fields().to_canonical_json(),
            build({{"", i32(1)}, {"extra", i32(3)}, {"c", i32(4)}}).to_canonical_json());
  EXPECT_TRUE(w.extra.contains(""));
}

// ---- `id`: "_id" at the top level, "id" inside, in a strict model -------------------------------

struct IdStrict {
  std::int64_t id = 0;
  std::string ib;
  friend bool operator==(const IdStrict&, const IdStrict&) = default;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
struct HoldsId {
  IdStrict inner;
  std::int64_t id = 0;
  friend bool operator==(const HoldsId&, const HoldsId&) = default;
};

TEST(Adversary28Lookup, IdIsUnderscoreIdOnlyAtTheTopInAnyOrder) {
  EXPECT_EQ(odm::from_bson<IdStrict>(build({{"ib", js("x")}, {"_id", i64(1)}})), (IdStrict{1, "x"}));
  EXPECT_EQ(failure<IdStrict>(Fields{{"ib", js("x")}, {"id", i64(1)}, {"_id", i64(2)}}), P("id", kStrict));
  EXPECT_EQ(failure<IdStrict>(Fields{{"ib", js("x")}, {"_id", i64(2)}, {"_ie", i64(1)}}), P("_ie", kStrict));
  EXPECT_EQ(failure<IdStrict>(Fields{{"ib", js("x")}, {"id", i64(1)}}), P("id", kStrict));
  const auto inner = [](const Fields& f) { return object(f); };
  EXPECT_EQ(odm::from_bson<HoldsId>(build({{"_id", i64(5)}, {"inner", inner({{"ib", js("x")}, {"id", i64(3)}})}})),
            (HoldsId{IdStrict{3, "x"}, 5}));
  EXPECT_EQ(failure<HoldsId>(Fields{{"_id", i64(5)}, {"inner", inner({{"ib", js("x")}, {"_id", i64(3)}})}}),
            P("inner._id", kStrict));
  EXPECT_EQ(failure<HoldsId>(Fields{{"inner", inner({{"ib", js("x")}, {"id", i64(3)}})}, {"id", i64(5)}}),
            P("_id", kMissing));
  EXPECT_EQ(failure<HoldsId>(Fields{{"_id", i64(5)}, {"inner", inner({{"ib", js("x")}})}}), P("inner.id", kMissing));
}

}  // namespace adversary_28
