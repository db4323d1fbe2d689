// Adversarial probes (adv26) of the decoding of members renamed with odm::renamed_from, as
// rewritten in odm/bson/codec.cpp (detail::decode_unordered, its `meet` lambda, the truth
// that waits for the document's end and read_from_name) and its hand-over from the in-order
// fast path of include/odm/bson/record.hpp (decode_members).
//
// The rule (README, "Renaming a field while both versions run", row "read"): the old
// name's value, whole, when the document has the old name, else the new one's, in whatever
// order the two come; each name's field must hold a value of the member's type and appears
// once. Unknown fields go to an odm::Extra in document order. from_bson's error names the
// dotted path of the first problem (include/odm/bson/convert.hpp).
//
// Seeds: each randomized test prints its seed (SCOPED_TRACE); ODM_ADVERSARY26_SEED
// overrides the base seed. The one defect these probes found (a waiting truth of the
// wrong type reported after a later bad field) is fixed; its probe asserts.

#include "test_support.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace adversary_26 {

// ---- models -----------------------------------------------------------------------------------

/// Top level: two renamed members around an odm::Extra in the middle, and an optional one.
struct Flat {
  std::int64_t id = 0;
  std::string contact = "c0";  // from "phone"
  odm::Extra extra;
  std::int32_t visits = 0;  // from "hits"
  std::optional<std::string> note = std::string("n0");  // from "memo"
  friend bool operator==(const Flat&, const Flat&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&Flat::contact>("phone"), odm::renamed_from<&Flat::visits>("hits"),
                    odm::renamed_from<&Flat::note>("memo"));
  };
};

/// A required member beside a renamed one.
struct Req {
  std::int64_t id = 0;
  std::string contact = "c0";  // from "phone"
  std::int32_t must = 0;
  friend bool operator==(const Req&, const Req&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&Req::contact>("phone"), odm::required(&Req::must));
  };
};

/// An embedded struct with a renamed member and an Extra.
struct Box {
  std::string label = "L0";  // from "tag"
  std::int32_t size = 1;
  odm::Extra more;
  friend bool operator==(const Box&, const Box&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&Box::label>("tag"));
  };
};

struct Crate {
  std::int64_t id = 0;
  Box box;                              // from "crate"
  std::vector<Box> boxes;               // from "cases"
  std::map<std::string, Box> by_key;
  friend bool operator==(const Crate&, const Crate&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&Crate::box>("crate"), odm::renamed_from<&Crate::boxes>("cases"));
  };
};

struct StrictM {
  std::int64_t id = 0;
  std::string a;
  std::string b;  // from "old_b"
  friend bool operator==(const StrictM&, const StrictM&) = default;
  struct odm_model {
    static constexpr bool strict = true;
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&StrictM::b>("old_b"));
  };
};

// 70 members: id is member 0, fN is member N. Renamed: f1, f62, f63, f64, f65 (bits 62..65
// of the seen sets), f64 required.
#define ADV26_F(n) std::int32_t f##n = n;
struct Big {
  std::int64_t id = 0;
  ADV26_F(1) ADV26_F(2) ADV26_F(3) ADV26_F(4) ADV26_F(5) ADV26_F(6) ADV26_F(7) ADV26_F(8) ADV26_F(9)
  ADV26_F(10) ADV26_F(11) ADV26_F(12) ADV26_F(13) ADV26_F(14) ADV26_F(15) ADV26_F(16) ADV26_F(17) ADV26_F(18)
  ADV26_F(19) ADV26_F(20) ADV26_F(21) ADV26_F(22) ADV26_F(23) ADV26_F(24) ADV26_F(25) ADV26_F(26) ADV26_F(27)
  ADV26_F(28) ADV26_F(29) ADV26_F(30) ADV26_F(31) ADV26_F(32) ADV26_F(33) ADV26_F(34) ADV26_F(35) ADV26_F(36)
  ADV26_F(37) ADV26_F(38) ADV26_F(39) ADV26_F(40) ADV26_F(41) ADV26_F(42) ADV26_F(43) ADV26_F(44) ADV26_F(45)
  ADV26_F(46) ADV26_F(47) ADV26_F(48) ADV26_F(49) ADV26_F(50) ADV26_F(51) ADV26_F(52) ADV26_F(53) ADV26_F(54)
  ADV26_F(55) ADV26_F(56) ADV26_F(57) ADV26_F(58) ADV26_F(59) ADV26_F(60) ADV26_F(61) ADV26_F(62) ADV26_F(63)
  ADV26_F(64) ADV26_F(65) ADV26_F(66) ADV26_F(67) ADV26_F(68) ADV26_F(69)
  friend bool operator==(const Big&, const Big&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields =
        odm::fields(odm::required(&Big::f64), odm::renamed_from<&Big::f1>("o1"), odm::renamed_from<&Big::f62>("o62"),
                    odm::renamed_from<&Big::f63>("o63"), odm::renamed_from<&Big::f64>("o64"),
                    odm::renamed_from<&Big::f65>("o65"));
  };
};
#undef ADV26_F

inline std::int32_t big_get(const Big& b, int n) {
  std::int32_t out = 0;
  int i = 0;
  boost::pfr::for_each_field(b, [&](const auto& f) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f)>, std::int32_t>)
      if (i == n) out = f;
    ++i;
  });
  return out;
}
inline void big_set(Big& b, int n, std::int32_t v) {
  int i = 0;
  boost::pfr::for_each_field(b, [&](auto& f) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f)>, std::int32_t>)
      if (i == n) f = v;
    ++i;
  });
}

// ---- helpers ----------------------------------------------------------------------------------

inline unsigned base_seed(unsigned fallback) {
  if (const char* s = std::getenv("ODM_ADVERSARY26_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  return fallback;
}

/// One field of a document built by hand: an int32, a string, or raw JSON of a value.
struct Field {
  std::string key;
  enum Kind { i32, str, json } kind = i32;
  std::int32_t number = 0;
  std::string text;
};

inline Field num(std::string key, std::int32_t v) { return Field{std::move(key), Field::i32, v, {}}; }
inline Field str(std::string key, std::string v) { return Field{std::move(key), Field::str, 0, std::move(v)}; }
inline Field raw(std::string key, std::string v) { return Field{std::move(key), Field::json, 0, std::move(v)}; }

inline odm::Document build(const std::vector<Field>& fields) {
  odm::Document d;
  for (const Field& f : fields) {
    switch (f.kind) {
      case Field::i32:
        bson_append_int32(d.get_mutable(), f.key.c_str(), -1, f.number);
        break;
      case Field::str:
        bson_append_utf8(d.get_mutable(), f.key.c_str(), -1, f.text.data(), static_cast<int>(f.text.size()));
        break;
      case Field::json: {
        const odm::Document v = odm::Document::from_json("{\"v\": " + f.text + "}");
        bson_iter_t it;
        bson_iter_init_find(&it, v.get(), "v");
        bson_append_iter(d.get_mutable(), f.key.c_str(), -1, &it);
        break;
      }
    }
  }
  return d;
}

inline std::string keys_of(const std::vector<Field>& fields) {
  std::string out;
  for (const Field& f : fields) out += f.key + " ";
  return out;
}

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
std::pair<std::string, std::string> failure(const std::string& json) {
  return failure<T>(odm::Document::from_json(json));
}

/// Decoding twice gives equal objects; encode then decode gives the object again, and its
/// encoding is byte-stable.
template <class T>
void expect_stable(const odm::Document& doc, const T& first) {
  const T second = odm::from_bson<T>(doc);
  EXPECT_TRUE(second == first) << "decoding the same bytes twice differs: " << doc.to_canonical_json();
  const odm::Document written = odm::to_bson(first);
  const T again = odm::from_bson<T>(written);
  EXPECT_TRUE(again == first) << "decode, encode, decode differs: " << written.to_canonical_json();
  EXPECT_EQ(odm::to_bson(again).to_canonical_json(), written.to_canonical_json());
}

}  // namespace adversary_26

namespace {

using namespace adversary_26;

// (1) The fast path reads the new name in order; the old name comes later, past unknown
// fields and past the members that follow, at the top and inside an embedded struct, a
// vector element and a map value: the old name wins, whole, and the unknown fields are
// kept once, in document order.
TEST(Adversary26Rename, TheOldNameAfterTheFastPathReadTheNewOneWinsAtEveryLevel) {
  {
    const odm::Document d = build({num("_id", 1), str("contact", "n"), num("visits", 2), num("zz", 1),
                                   str("phone", "o"), num("yy", 2), num("hits", 9)});
    const Flat f = odm::from_bson<Flat>(d);
    EXPECT_EQ(f.contact, "o");
    EXPECT_EQ(f.visits, 9);
    EXPECT_EQ(f.note, std::optional<std::string>("n0"));
    EXPECT_EQ(f.extra.fields().to_canonical_json(), odm_test::canonical(R"({"zz": 1, "yy": 2})"));
    expect_stable(d, f);
  }
  {
    // Every member read in order, then only old names after the last one.
    const odm::Document d = build({num("_id", 1), str("contact", "n"), num("visits", 2), str("note", "x"),
                                   num("hits", 3), raw("memo", "null"), str("phone", "p")});
    const Flat f = odm::from_bson<Flat>(d);
    EXPECT_EQ(f.contact, "p");
    EXPECT_EQ(f.visits, 3);
    EXPECT_EQ(f.note, std::nullopt);
    EXPECT_TRUE(f.extra.empty());
    expect_stable(d, f);
  }
  {
    const std::string box_new = R"({"label": "n", "size": 5, "q": 1, "tag": "o", "r": 2})";
    const odm::Document d = build({num("_id", 1), raw("box", R"({"label": "bn", "size": 4, "k": 1})"),
                                   raw("boxes", "[" + box_new + "]"), raw("by_key", R"({"a": )" + box_new + "}"),
                                   num("zz", 0), raw("crate", R"({"tag": "bo", "j": 2})")});
    const Crate c = odm::from_bson<Crate>(d);
    EXPECT_EQ(c.box.label, "bo");
    EXPECT_EQ(c.box.size, 1) << "the old name's sub-document is read whole, over a fresh Box";
    EXPECT_EQ(c.box.more.fields().to_canonical_json(), odm_test::canonical(R"({"j": 2})"));
    ASSERT_EQ(c.boxes.size(), 1u);
    EXPECT_EQ(c.boxes[0].label, "o");
    EXPECT_EQ(c.boxes[0].size, 5);
    EXPECT_EQ(c.boxes[0].more.fields().to_canonical_json(), odm_test::canonical(R"({"q": 1, "r": 2})"));
    ASSERT_EQ(c.by_key.count("a"), 1u);
    EXPECT_TRUE(c.by_key.at("a") == c.boxes[0]);
    expect_stable(d, c);
  }
}

// (2) A truth that waits (old name first) while a later field is bad: the error names the
// bad field; a bad waiting truth and a missing required member: the type error wins,
// as a type error anywhere else wins over a missing member (it is met first).
TEST(Adversary26Rename, AWaitingTruthDoesNotHideOrMisnameALaterError) {
  EXPECT_EQ(failure<Flat>(R"({"phone": "o", "_id": 1, "visits": "bad"})").first, "visits");
  EXPECT_EQ(failure<Flat>(R"({"phone": "o", "_id": 1, "contact": "n", "hits": "bad"})").first, "hits");
  EXPECT_EQ(failure<Crate>(R"({"crate": {"tag": "o"}, "_id": 1, "boxes": [{"tag": "t", "size": "x"}]})").first,
            "boxes.0.size");
  // Missing required `must`, a waiting truth of the wrong type: the wrong type is named,
  // in whichever order the two names come (the same as when nothing waits).
  for (const char* json : {R"({"phone": 5, "_id": 1})", R"({"phone": 5, "_id": 1, "contact": "c"})",
                           R"({"_id": 1, "contact": "c", "phone": 5})", R"({"_id": 1, "contact": "c", "x": 1, "phone": 5})"}) {
    const auto [path, reason] = failure<Req>(std::string(json));
    EXPECT_EQ(path, "phone") << json << ": " << reason;
    EXPECT_EQ(reason.rfind("expected ", 0), 0u) << json << ": " << reason;
  }
  // A good waiting truth and a missing required member: the missing one.
  EXPECT_EQ(failure<Req>(R"({"phone": "o", "_id": 1})").first, "must");
  EXPECT_EQ(failure<Req>(R"({"phone": "o", "_id": 1})").second, "missing required field");
  EXPECT_EQ(odm::from_bson<Req>(odm::Document::from_json(R"({"phone": "o", "must": 3, "contact": "n"})")).contact,
            "o");
}

// from_bson "names the dotted path of the first problem": a waiting truth of the wrong type
// before another wrong field is that first problem, whatever the order of the two names of
// the member (with the new name first it is read at once and named).
TEST(Adversary26Rename, TheFirstProblemIsNamedWhenTheTruthThatHoldsItWaited) {
  for (const char* json : {R"({"_id": 1, "contact": "c", "phone": 5, "visits": "bad"})",
                           R"({"_id": 1, "phone": 5, "contact": "c", "visits": "bad"})",
                           R"({"_id": 1, "phone": 5, "visits": "bad"})"}) {
    const auto [path, reason] = failure<Flat>(std::string(json));
    EXPECT_EQ(path, "phone") << json << ": " << reason;
  }
}

// (3) A waiting truth of the wrong type or malformed is only seen at the end: its path is
// still its own name, at any depth, in vector elements and map values.
TEST(Adversary26Rename, AWaitingTruthOfTheWrongTypeOrMalformedIsNamedByItsPath) {
  struct Case {
    std::string json;
    std::string path;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"crate": {"tag": 5}, "_id": 1, "box": {}})", "crate.tag"},
           {R"({"crate": 5, "_id": 1})", "crate"},
           {R"({"_id": 1, "crate": {"tag": "o", "size": "s"}, "box": {"label": "x"}})", "crate.size"},
           {R"({"_id": 1, "boxes": [{"tag": "a"}, {"tag": 5, "label": "x"}]})", "boxes.1.tag"},
           {R"({"_id": 1, "cases": [{"tag": "a"}, {"tag": [], "label": "x"}], "boxes": []})", "cases.1.tag"},
           {R"({"_id": 1, "by_key": {"k": {"tag": {"a": 1}, "size": 2, "label": "l"}}})", "by_key.k.tag"},
           {R"({"_id": 1, "cases": {"0": {}}, "boxes": []})", "cases"},
       }) {
    const auto [path, reason] = failure<Crate>(c.json);
    EXPECT_EQ(path, c.path) << c.json << ": " << reason;
  }
  // Invalid UTF-8 in a waiting truth (a string member): refused, named by the old name.
  {
    odm::Document d;
    bson_append_utf8(d.get_mutable(), "phone", -1, "a\xff", 2);
    bson_append_int64(d.get_mutable(), "_id", -1, 1);
    bson_append_utf8(d.get_mutable(), "contact", -1, "c", 1);
    const auto [path, reason] = failure<Flat>(d);
    EXPECT_EQ(path, "phone") << reason;
    EXPECT_NE(reason.find("UTF-8"), std::string::npos) << reason;
  }
  // A waiting truth whose sub-document holds a string whose length runs past its end:
  // refused under the old name (and the same bytes under the new name alone, too).
  for (const char* name : {"crate", "box"}) {
    // inner: {tag: "ab"} with the string's length field set to 40.
    std::vector<std::uint8_t> inner{0, 0, 0, 0, 0x02, 't', 'a', 'g', 0, 40, 0, 0, 0, 'a', 'b', 0, 0};
    inner[0] = static_cast<std::uint8_t>(inner.size());
    std::vector<std::uint8_t> outer{0, 0, 0, 0, 0x03};
    for (const char* p = name; *p != 0; ++p) outer.push_back(static_cast<std::uint8_t>(*p));
    outer.push_back(0);
    outer.insert(outer.end(), inner.begin(), inner.end());
    outer.push_back(0);
    outer[0] = static_cast<std::uint8_t>(outer.size());
    bson_t b;
    ASSERT_TRUE(bson_init_static(&b, outer.data(), outer.size()));
    try {
      (void)odm::from_bson<Crate>(&b);
      ADD_FAILURE() << name << ": a corrupt sub-document was read";
    } catch (const odm::DecodeError& e) {
      EXPECT_EQ(std::string(e.path()).rfind(name, 0), 0u) << name << ": " << e.what();
    }
  }
}

// (4) Extra with two renamed members in every order of their four names, _id and two
// unknown fields (5040 documents): the old names win, the unknown fields are kept once, in
// document order, and decoding is stable.
TEST(Adversary26Rename, AnExtraKeepsUnknownFieldsOnceInDocumentOrderInEveryOrder) {
  std::vector<Field> fields{num("_id", 1),   str("contact", "n"), str("phone", "o"), num("visits", 4),
                            num("hits", 7), num("u1", 11),         raw("u2", R"({"contact": "decoy"})")};
  std::sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.key < b.key; });
  int orders = 0;
  do {
    const odm::Document d = build(fields);
    SCOPED_TRACE(keys_of(fields));
    const Flat f = odm::from_bson<Flat>(d);
    EXPECT_EQ(f.contact, "o");
    EXPECT_EQ(f.visits, 7);
    std::vector<std::string> unknown;
    for (const Field& x : fields)
      if (x.key[0] == 'u') unknown.push_back(x.key);
    std::vector<std::string> kept;
    bson_iter_t it;
    bson_iter_init(&it, f.extra.fields().get());
    while (bson_iter_next(&it)) kept.emplace_back(bson_iter_key(&it));
    EXPECT_EQ(kept, unknown);
    if (orders % 97 == 0) expect_stable(d, f);
    ++orders;
  } while (std::next_permutation(fields.begin(), fields.end(),
                                 [](const Field& a, const Field& b) { return a.key < b.key; }));
  EXPECT_EQ(orders, 5040);
}

// (5) One name twice, inserted at every position of every order of the other fields
// (including a duplicate old name after the truth waited, and after the fast path read
// the new name): refused, naming the duplicated name.
TEST(Adversary26Rename, ANameTwiceAnywhereIsRefusedByThatName) {
  std::vector<Field> base{num("_id", 1), str("contact", "n"), str("phone", "o"), num("u", 1), num("visits", 2)};
  for (const char* dup_c : {"phone", "contact", "visits", "_id"}) {
    const std::string dup = dup_c;
    std::vector<Field> fields = base;
    std::sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.key < b.key; });
    do {
      for (std::size_t at = 0; at <= fields.size(); ++at) {
        std::vector<Field> doc = fields;
        const Field copy = *std::find_if(doc.begin(), doc.end(), [&](const Field& f) { return f.key == dup; });
        doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(at), copy);
        const auto [path, reason] = failure<Flat>(build(doc));
        EXPECT_EQ(path, dup) << keys_of(doc) << ": " << reason;
        EXPECT_EQ(reason, "field appears twice in the document") << keys_of(doc);
      }
    } while (std::next_permutation(fields.begin(), fields.end(),
                                   [](const Field& a, const Field& b) { return a.key < b.key; }));
  }
  // Nested, an old name twice after the truth waited.
  EXPECT_EQ(failure<Crate>(R"({"_id": 1, "box": {"tag": "a", "label": "b", "tag": "c"}})").first, "box.tag");
  EXPECT_EQ(failure<Crate>(R"({"_id": 1, "boxes": [{}, {"label": "b", "size": 1, "tag": "c", "tag": "d"}]})").first,
            "boxes.1.tag");
}

// (6) 70 members, renamed at bits 1, 62, 63, 64, 65: random documents (each renamed member
// under no name, either, or both in either order; the others present or not; unknown
// fields; odm's order or shuffled; sometimes one old name twice) against the rule.
TEST(Adversary26Rename, SeventyMembersRenamedAroundTheSixtyFourthBitReadByTheRule) {
  const unsigned seed = base_seed(2601);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<int> renamed{1, 62, 63, 64, 65};
  for (int iteration = 0; iteration < 3000; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    Big expected;
    expected.id = iteration;
    std::vector<Field> doc{num("_id", iteration)};
    for (int n = 1; n <= 69; ++n) {
      const bool is_renamed = std::find(renamed.begin(), renamed.end(), n) != renamed.end();
      const std::int32_t vnew = static_cast<std::int32_t>(rng() % 1000) + 1000;
      const std::int32_t vold = static_cast<std::int32_t>(rng() % 1000) + 5000;
      int choice = static_cast<int>(rng() % (is_renamed ? 5 : 2));  // 0 none, 1 new, 2 old, 3 new+old, 4 old+new
      if (n == 64 && choice == 0) choice = 1;                        // required
      if (!is_renamed && n != 64 && choice == 0) continue;
      if (!is_renamed) choice = 1;
      const std::string nn = "f" + std::to_string(n);
      const std::string on = "o" + std::to_string(n);
      if (choice == 1 || choice == 3) doc.push_back(num(nn, vnew));
      if (choice >= 2) doc.push_back(num(on, vold));
      if (choice == 4) doc.push_back(num(nn, vnew));
      if (choice == 1 || choice == 3 || choice == 4) big_set(expected, n, vnew);
      if (choice >= 2) big_set(expected, n, vold);
      if (rng() % 10 == 0) doc.push_back(num("x" + std::to_string(n), 0));
    }
    if (rng() % 2 == 0) std::shuffle(doc.begin() + 1, doc.end(), rng);
    bool dup = false;
    std::string dup_name;
    if (rng() % 8 == 0) {
      const std::string on = "o" + std::to_string(renamed[rng() % renamed.size()]);
      const auto found = std::find_if(doc.begin(), doc.end(), [&](const Field& f) { return f.key == on; });
      if (found != doc.end()) {
        const Field copy = *found;
        doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(rng() % (doc.size() + 1)), copy);
        dup = true;
        dup_name = on;
      }
    }
    const odm::Document d = build(doc);
    if (dup) {
      const auto [path, reason] = failure<Big>(d);
      EXPECT_EQ(path, dup_name) << keys_of(doc) << ": " << reason;
      continue;
    }
    Big got;
    try {
      got = odm::from_bson<Big>(d);
    } catch (const odm::DecodeError& e) {
      ADD_FAILURE() << e.what() << " in " << keys_of(doc);
      continue;
    }
    for (int n = 1; n <= 69; ++n)
      if (big_get(got, n) != big_get(expected, n))
        ADD_FAILURE() << "f" << n << ": " << big_get(got, n) << " != " << big_get(expected, n) << " in "
                      << keys_of(doc);
    EXPECT_TRUE(got == expected);
    if (iteration % 50 == 0) expect_stable(d, got);
  }
  // Missing required f64 (neither name), with renamed members around it waiting.
  EXPECT_EQ(failure<Big>(R"({"o65": 1, "o63": 2, "_id": 1, "f63": 3})").first, "f64");
  EXPECT_EQ(odm::from_bson<Big>(odm::Document::from_json(R"({"o64": 9, "o63": 2, "_id": 1, "f64": 3})")).f64, 9);
}

// (7) A strict model: every order of its fields with both names reads the old one; one
// unknown field at any position is refused by its name (a waiting truth hides nothing).
TEST(Adversary26Rename, AStrictModelTakesBothNamesAndRefusesAnUnknownFieldAnywhere) {
  std::vector<Field> fields{num("_id", 1), str("a", "x"), str("b", "n"), str("old_b", "o")};
  std::sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.key < b.key; });
  do {
    const odm::Document d = build(fields);
    const StrictM s = odm::from_bson<StrictM>(d);
    EXPECT_EQ(s.b, "o") << keys_of(fields);
    expect_stable(d, s);
    for (std::size_t at = 0; at <= fields.size(); ++at) {
      std::vector<Field> doc = fields;
      doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(at), num("u", 1));
      const auto [path, reason] = failure<StrictM>(build(doc));
      EXPECT_EQ(path, "u") << keys_of(doc) << ": " << reason;
    }
  } while (std::next_permutation(fields.begin(), fields.end(),
                                 [](const Field& a, const Field& b) { return a.key < b.key; }));
}

// (8) Vector elements and map values, each with its own order of the two names and its
// own unknown fields: each reads by the rule, none sees another's names.
TEST(Adversary26Rename, EachVectorElementAndMapValueReadsItsOwnOrder) {
  const std::string elements =
      R"([{"label": "n", "q": 1, "tag": "o", "r": 2}, {"tag": "o2", "size": 3, "label": "n2"}, {"label": "n3"},)"
      R"( {"tag": "o4"}, {}, {"size": 6, "s": 0, "label": "n6", "tag": "o6"}])";
  const odm::Document d = odm::Document::from_json(R"({"_id": 1, "boxes": )" + elements +
                                                   R"(, "by_key": {"a": {"tag": "ma", "label": "x"}, "b": {"label": "mb"},)"
                                                   R"( "c": {"label": "x", "tag": "mc", "size": 9}}})");
  const Crate c = odm::from_bson<Crate>(d);
  std::vector<std::string> labels;
  for (const Box& b : c.boxes) labels.push_back(b.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"o", "o2", "n3", "o4", "L0", "o6"}));
  ASSERT_EQ(c.boxes.size(), 6u);
  EXPECT_EQ(c.boxes[0].more.fields().to_canonical_json(), odm_test::canonical(R"({"q": 1, "r": 2})"));
  EXPECT_EQ(c.boxes[1].size, 3);
  EXPECT_EQ(c.boxes[5].size, 6);
  EXPECT_EQ(c.boxes[5].more.fields().to_canonical_json(), odm_test::canonical(R"({"s": 0})"));
  EXPECT_TRUE(c.boxes[4] == Box{});
  ASSERT_EQ(c.by_key.size(), 3u);
  EXPECT_EQ(c.by_key.at("a").label, "ma");
  EXPECT_EQ(c.by_key.at("b").label, "mb");
  EXPECT_EQ(c.by_key.at("c").label, "mc");
  EXPECT_EQ(c.by_key.at("c").size, 9);
  expect_stable(d, c);
}

// (9) The old name holding null, an empty document or an empty array is the truth in
// either order: null for an optional is nullopt, null for a string is refused by the old
// name, an empty document is a fresh Box, an empty array an empty vector.
TEST(Adversary26Rename, AnOldNullOrEmptyValueIsTheTruthInEitherOrder) {
  for (const char* json : {R"({"_id": 1, "note": "x", "memo": null})", R"({"_id": 1, "memo": null, "note": "x"})",
                           R"({"memo": null, "_id": 1, "zz": 1, "note": "x"})"}) {
    const Flat f = odm_test::decode<Flat>(json);
    EXPECT_EQ(f.note, std::nullopt) << json;
  }
  for (const char* json : {R"({"_id": 1, "contact": "x", "phone": null})", R"({"_id": 1, "phone": null, "contact": "x"})",
                           R"({"phone": null, "_id": 1})"}) {
    const auto [path, reason] = failure<Flat>(std::string(json));
    EXPECT_EQ(path, "phone") << json << ": " << reason;
  }
  for (const char* json : {R"({"_id": 1, "box": {"label": "x", "size": 3, "k": 1}, "crate": {}})",
                           R"({"_id": 1, "crate": {}, "box": {"label": "x", "size": 3, "k": 1}})",
                           R"({"crate": {}, "_id": 1, "boxes": [], "box": {"label": "x", "size": 3, "k": 1}})"}) {
    const Crate c = odm_test::decode<Crate>(json);
    EXPECT_TRUE(c.box == Box{}) << json << ": " << c.box.label << " " << c.box.size;
  }
  for (const char* json : {R"({"_id": 1, "boxes": [{"label": "a"}], "cases": []})",
                           R"({"_id": 1, "cases": [], "boxes": [{"label": "a"}]})"}) {
    EXPECT_TRUE(odm_test::decode<Crate>(json).boxes.empty()) << json;
  }
  // Old name null for a struct member: refused, named "crate".
  EXPECT_EQ(failure<Crate>(R"({"crate": null, "_id": 1, "box": {}})").first, "crate");
}

// (10) Random Crate documents (renamed struct at the top, renamed vector, elements and map
// values with both names in random orders, unknown fields): the rule, decoding twice gives
// equal objects, and decode, encode, decode is stable.
TEST(Adversary26Rename, RandomCratesFollowTheRuleAndDecodeStably) {
  const unsigned seed = base_seed(2602);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const auto box_json = [&](Box& expected) {
    std::vector<std::pair<std::string, std::string>> parts;
    const std::string n = "n" + std::to_string(rng() % 100);
    const std::string o = "o" + std::to_string(rng() % 100);
    const int choice = static_cast<int>(rng() % 4);
    if (choice & 1) parts.emplace_back("label", "\"" + n + "\"");
    if (choice & 2) parts.emplace_back("tag", "\"" + o + "\"");
    expected.label = (choice & 2) ? o : (choice & 1) ? n : "L0";
    if (rng() % 2) {
      const std::int32_t s = static_cast<std::int32_t>(rng() % 50);
      parts.emplace_back("size", std::to_string(s));
      expected.size = s;
    }
    for (int u = 0; u < static_cast<int>(rng() % 3); ++u) parts.emplace_back("u" + std::to_string(u), "1");
    std::shuffle(parts.begin(), parts.end(), rng);
    std::string json = "{";
    std::string kept = "{";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      json += (i ? ", \"" : "\"") + parts[i].first + "\": " + parts[i].second;
      if (parts[i].first[0] == 'u') kept += (kept.size() > 1 ? ", \"" : "\"") + parts[i].first + "\": 1";
    }
    expected.more = odm::Extra{};
    return std::make_pair(json + "}", kept + "}");
  };
  for (int iteration = 0; iteration < 1500; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    std::vector<std::pair<std::string, std::string>> top{{"_id", std::to_string(iteration)}};
    Crate expected;
    expected.id = iteration;
    const int box_choice = static_cast<int>(rng() % 4);
    Box box_new, box_old;
    const auto bn = box_json(box_new);
    const auto bo = box_json(box_old);
    if (box_choice & 1) top.emplace_back("box", bn.first);
    if (box_choice & 2) top.emplace_back("crate", bo.first);
    std::string box_kept = "{}";
    if (box_choice & 2) {
      expected.box = box_old;
      box_kept = bo.second;
    } else if (box_choice & 1) {
      expected.box = box_new;
      box_kept = bn.second;
    }
    std::vector<std::string> elem_kept;
    const int vec_choice = static_cast<int>(rng() % 4);
    std::vector<Box> vnew, vold;
    std::vector<std::string> vnew_kept, vold_kept;
    std::string vnew_json = "[", vold_json = "[";
    for (int e = 0; e < static_cast<int>(rng() % 4); ++e) {
      Box b;
      const auto j = box_json(b);
      vnew_json += (e ? ", " : "") + j.first;
      vnew.push_back(b);
      vnew_kept.push_back(j.second);
    }
    for (int e = 0; e < static_cast<int>(rng() % 4); ++e) {
      Box b;
      const auto j = box_json(b);
      vold_json += (e ? ", " : "") + j.first;
      vold.push_back(b);
      vold_kept.push_back(j.second);
    }
    if (vec_choice & 1) top.emplace_back("boxes", vnew_json + "]");
    if (vec_choice & 2) top.emplace_back("cases", vold_json + "]");
    if (vec_choice & 2) {
      expected.boxes = vold;
      elem_kept = vold_kept;
    } else if (vec_choice & 1) {
      expected.boxes = vnew;
      elem_kept = vnew_kept;
    }
    std::map<std::string, std::string> map_kept;
    if (rng() % 2) {
      std::string mj = "{";
      for (int e = 0; e < static_cast<int>(rng() % 3) + 1; ++e) {
        Box b;
        const auto j = box_json(b);
        const std::string k = "k" + std::to_string(e);
        mj += (e ? ", \"" : "\"") + k + "\": " + j.first;
        expected.by_key[k] = b;
        map_kept[k] = j.second;
      }
      top.emplace_back("by_key", mj + "}");
    }
    if (rng() % 3 == 0) top.emplace_back("zz", "{\"tag\": 1}");
    if (rng() % 2) std::shuffle(top.begin(), top.end(), rng);
    std::string json = "{";
    for (std::size_t i = 0; i < top.size(); ++i) json += (i ? ", \"" : "\"") + top[i].first + "\": " + top[i].second;
    json += "}";
    SCOPED_TRACE(json);
    const odm::Document d = odm::Document::from_json(json);
    Crate got;
    try {
      got = odm::from_bson<Crate>(d);
    } catch (const odm::DecodeError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    // Extras compared by their JSON; the rest member by member.
    EXPECT_EQ(got.box.label, expected.box.label);
    EXPECT_EQ(got.box.size, expected.box.size);
    EXPECT_EQ(got.box.more.fields().to_canonical_json(), odm_test::canonical(box_kept));
    ASSERT_EQ(got.boxes.size(), expected.boxes.size());
    for (std::size_t i = 0; i < got.boxes.size(); ++i) {
      EXPECT_EQ(got.boxes[i].label, expected.boxes[i].label) << i;
      EXPECT_EQ(got.boxes[i].size, expected.boxes[i].size) << i;
      EXPECT_EQ(got.boxes[i].more.fields().to_canonical_json(), odm_test::canonical(elem_kept[i])) << i;
    }
    ASSERT_EQ(got.by_key.size(), expected.by_key.size());
    for (const auto& entry : expected.by_key) {
      ASSERT_EQ(got.by_key.count(entry.first), 1u);
      EXPECT_EQ(got.by_key.at(entry.first).label, entry.second.label);
      EXPECT_EQ(got.by_key.at(entry.first).size, entry.second.size);
      EXPECT_EQ(got.by_key.at(entry.first).more.fields().to_canonical_json(),
                odm_test::canonical(map_kept.at(entry.first)));
    }
    expect_stable(d, got);
  }
}

}  // namespace
