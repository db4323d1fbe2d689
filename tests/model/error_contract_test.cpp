// The error contract (README, "Errors"): everything odm throws derives from odm::Error.
// Each case here used to leave odm as a standard exception (std::bad_variant_access,
// std::out_of_range, std::logic_error); now it is the odm type that names the call.

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <concepts>
#include <memory>
#include <string>
#include <vector>

namespace error_contract_test {

struct Author {
  std::string id;
  std::string name;
};

struct Post {
  odm::ObjectId id;
  odm::Ref<Author> author;
  odm::RefMany<Author> editors;
  odm::ParentRef<Author> owner;
};

struct Comment {
  std::int32_t id;
  odm::ParentRef<Post> post;
  std::int32_t rank;
};

/// Runs `call`, expects it to throw exactly E, caught as odm::Error, whose message starts
/// with `start` (the convention: the call or subject first, no "odm:" prefix).
template <class E, class Call>
void expect_odm_error(Call call, const std::string& start) {
  try {
    call();
    ADD_FAILURE() << "expected an exception starting with " << start;
  } catch (const odm::Error& error) {
    EXPECT_NE(dynamic_cast<const E*>(&error), nullptr) << "thrown as another odm type: " << error.what();
    EXPECT_EQ(std::string(error.what()).rfind(start, 0), 0u) << error.what();
  } catch (const std::exception& other) {
    ADD_FAILURE() << "a standard exception escaped odm: " << other.what();
  }
}

static_assert(std::derived_from<odm::UsageError, odm::Error>);
static_assert(std::derived_from<odm::DataError, odm::Error>);
static_assert(std::derived_from<odm::ProtocolError, odm::ReplyError>);
static_assert(std::derived_from<odm::ServerError, odm::ReplyError>);
static_assert(std::derived_from<odm::ConnectionError, odm::ReplyError>);
static_assert(std::derived_from<odm::ReplyError, odm::Error>);

TEST(ErrorContract, TheIdOfARefThatWasNeverGivenOneIsAUsageError) {
  const Post post{};  // was std::bad_variant_access
  expect_odm_error<odm::UsageError>([&] { (void)post.author.id(); }, "Ref::id: the reference was never given an id");
  // A ParentRef says so without throwing.
  EXPECT_FALSE(post.owner.id().has_value());
  // Given an id, it reads back.
  Post given{};
  given.author = "tolkien";
  EXPECT_EQ(given.author.id(), "tolkien");
}

TEST(ErrorContract, APositionPastTheEndIsAUsageErrorThatNamesIt) {
  Post post{};
  post.editors.push_back("a");
  post.editors.push_back("b");
  EXPECT_EQ(post.editors.id(1), "b");
  // All were std::out_of_range.
  expect_odm_error<odm::UsageError>([&] { (void)post.editors.id(2); },
                                    "RefMany::id: position 2 is past the end (size 2)");
  expect_odm_error<odm::UsageError>([&] { (void)post.editors.at(7); },
                                    "RefMany::at: position 7 is past the end (size 2)");
  const odm::Subset<Comment, 3, &Comment::rank> top{Comment{1, {}, 5}};
  EXPECT_EQ(top[0].id, 1);
  expect_odm_error<odm::UsageError>([&] { (void)top[1]; }, "Subset::operator[]: position 1 is past the end (size 1)");
}

TEST(ErrorContract, ResolvingARefManyWithTheWrongNumberOfTargetsIsAUsageError) {
  odm::RefMany<Author> editors;
  editors.push_back("a");
  editors.push_back("b");
  // Was std::logic_error.
  expect_odm_error<odm::UsageError>([&] { odm::detail::Access::resolve(editors, {std::make_shared<const Author>(Author{"a", "A"})}); },
                                    "RefMany::resolve: one target per id is required");
  EXPECT_FALSE(editors.is_loaded()) << "a refused resolution changes nothing";
}

}  // namespace error_contract_test
