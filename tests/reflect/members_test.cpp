// Compile-time member names (odm/reflect/members.hpp).

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace members_test {

struct Thirty {
  int m00; int m01; int m02; int m03; int m04; int m05; int m06; int m07; int m08; int m09;
  std::string m10; std::string m11; std::string m12; std::string m13; std::string m14;
  double m15; double m16; double m17; double m18; double m19;
  std::vector<int> m20; std::vector<int> m21; std::vector<int> m22; std::vector<int> m23; std::vector<int> m24;
  bool m25; bool m26; bool m27; bool m28; bool m29;
};

struct Spelling {
  int _leading;
  int trailing_;
  int a1;
  int x2y3z4;
  int snake_case_name;
  int CamelCase;
  int ALLCAPS;
  int m_;
  int _;
  int n0_0_0;
  int i;
};

template <class T, int N>
struct Templated {
  T value;
  std::array<int, 2> pair;
  int count = N;
};

struct Complicated {
  std::map<std::string, std::vector<std::variant<int, std::string>>> deep;
  std::variant<int, std::map<std::string, int>> choice;
  Templated<std::map<std::string, int>, 3> templated;
};

struct InNestedNamespace {
  int first;
  std::string second;
};

namespace {
struct InAnonymousNamespace {
  int anon_first;
  std::string anon_second;
};
}  // namespace

/// C++ allows non-ASCII identifiers, and both g++ and clang print them as UTF-8 in
/// __PRETTY_FUNCTION__.
struct NonAscii {
  int größe;
  int 名前;
  int имя;
  int plain;
};

struct Outer {
  struct Inner {
    int inner_member;
  };
  Inner inner;
};

}  // namespace members_test

namespace reflect_members_test {

using namespace members_test;
using odm::detail::member_count;
using odm::detail::member_names;

template <class T>
std::vector<std::string> names() {
  std::vector<std::string> out;
  for (std::string_view name : member_names<T>) out.emplace_back(name);
  return out;
}

TEST(MemberNames, ThirtyMembers) {
  static_assert(member_count<Thirty> == 30);
  std::vector<std::string> expected;
  for (int i = 0; i < 30; ++i) expected.push_back((i < 10 ? "m0" : "m") + std::to_string(i));
  EXPECT_EQ(names<Thirty>(), expected);
  static_assert(member_names<Thirty>[0] == "m00");
  static_assert(member_names<Thirty>[29] == "m29");
}

TEST(MemberNames, UnderscoresDigitsAndCase) {
  EXPECT_EQ(names<Spelling>(), (std::vector<std::string>{"_leading", "trailing_", "a1", "x2y3z4", "snake_case_name",
                                                         "CamelCase", "ALLCAPS", "m_", "_", "n0_0_0", "i"}));
}

TEST(MemberNames, TemplatesAndComplicatedTypes) {
  EXPECT_EQ((names<Templated<std::vector<std::string>, 7>>()), (std::vector<std::string>{"value", "pair", "count"}));
  EXPECT_EQ(names<Complicated>(), (std::vector<std::string>{"deep", "choice", "templated"}));
}

TEST(MemberNames, NestedTypes) {
  EXPECT_EQ(names<InNestedNamespace>(), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(names<Outer>(), (std::vector<std::string>{"inner"}));
  EXPECT_EQ(names<Outer::Inner>(), (std::vector<std::string>{"inner_member"}));
}

TEST(MemberNames, AnonymousNamespaceAndLocalTypes) {
  EXPECT_EQ(names<InAnonymousNamespace>(), (std::vector<std::string>{"anon_first", "anon_second"}));
  struct Local {
    int local_a;
    std::string local_b;
  };
  EXPECT_EQ(names<Local>(), (std::vector<std::string>{"local_a", "local_b"}));
  EXPECT_EQ(odm_test::encoded(Local{1, "x"}), odm_test::canonical(R"({"local_a": 1, "local_b": "x"})"));
  EXPECT_EQ(odm_test::encoded(InAnonymousNamespace{1, "x"}),
            odm_test::canonical(R"({"anon_first": 1, "anon_second": "x"})"));
}

TEST(MemberNames, NonAsciiIdentifiers) {
  // members.hpp's is_identifier_char() accepts ASCII letters, digits and '_' only, so
  // the scan back from the '}' stops inside the UTF-8 bytes: g++ yields "e" for größe
  // and "NonAscii" (clang "reflection_object") for 名前: silently wrong field names.
  EXPECT_EQ(names<NonAscii>(), (std::vector<std::string>{"größe", "名前", "имя", "plain"}));
}

TEST(MemberNames, UsableAsStoredNames) {
  const Spelling s{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(odm_test::encoded(s), odm_test::canonical(R"({"_leading": 1, "trailing_": 2, "a1": 3, "x2y3z4": 4,
      "snake_case_name": 5, "CamelCase": 6, "ALLCAPS": 7, "m_": 8, "_": 9, "n0_0_0": 10, "i": 11})"));
  const auto back = odm_test::round_trip(s);
  EXPECT_EQ(back.x2y3z4, 4);
  EXPECT_EQ(back._, 9);
}

TEST(MemberNames, MemberIndex) {
  static_assert(odm::detail::member_index(&Spelling::_leading) == 0);
  static_assert(odm::detail::member_index(&Spelling::i) == 10);
  static_assert(odm::detail::member_index(&Thirty::m17) == 17);
  static_assert(odm::detail::member_index(&Complicated::templated) == 2);
  SUCCEED();
}

}  // namespace reflect_members_test
