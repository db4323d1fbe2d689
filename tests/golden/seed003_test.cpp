// Golden tests of seed 003 (Russian guide: students, id cards, e-mails, courses, the
// message board). The e-mail addresses are the seed's own text ("[email protected]",
// as the guide's web page obfuscated them).

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace golden_seed003_test {

using odm_test::day;
using odm_test::golden;
using odm_test::instant;
using odm_test::oid;
using seed::EmailType;

const odm::ObjectId kSammy = oid("612d1e835ebee16872a109a4");
const odm::ObjectId kPhysics = oid("61741c9cbc9ec583c836170a");
const odm::ObjectId kCloud = oid("61741c9cbc9ec583c836170b");
const odm::ObjectId kMessage = oid("61741c9cbc9ec583c836174c");

const std::vector<odm::Embedded<seed::Email>> kEmails = {seed::Email{"[email protected]", EmailType::work},
                                                        seed::Email{"[email protected]", EmailType::home}};

TEST(Seed003, StudentWithEmbeddedEmails) {
  const seed::StudentWithEmails sammy{kSammy, "Sammy", "Shark", kEmails};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ]
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
        {
            "email": "[email protected]",
            "type": "work"
        },
        {
            "email": "[email protected]",
            "type": "home"
        }
    ]
  })json"));
  // The e-mail type is an enum, stored by name.
  EXPECT_EQ(odm_test::decode_error<seed::StudentWithEmails>(R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"}, "first_name": "Sammy", "last_name": "Shark",
    "emails": [{"email": "[email protected]", "type": "work"}, {"email": "[email protected]", "type": "school"}]
  })json"),
            "emails.1.type: \"school\" is not a name of this enum");
}

TEST(Seed003, StudentWithEmbeddedIdCard) {
  const seed::StudentWithIdCard sammy{kSammy, "Sammy", "Shark",
                                      seed::IdCard{"123-1234-123", day(2020, 1, 23), day(2020, 1, 23)}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "id_card": {
      "number": "123-1234-123",
      "issued_on": {"$date": {"$numberLong": "1579737600000"}},
      "expires_on": {"$date": {"$numberLong": "1579737600000"}}
    }
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "id_card": {
        "number": "123-1234-123",
        "issued_on": {"$date": "2020-01-23T00:00:00Z"},
        "expires_on": {"$date": "2020-01-23T00:00:00Z"}
    }
  })json"));
  // The card's dates are calendar days: a time of day is refused, with its path.
  EXPECT_EQ(odm_test::decode_error<seed::StudentWithIdCard>(R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"}, "first_name": "Sammy", "last_name": "Shark",
    "id_card": {"number": "123-1234-123", "issued_on": {"$date": "2020-01-23T00:00:00Z"},
                "expires_on": {"$date": "2020-01-23T05:00:00Z"}}
  })json")
                .rfind("id_card.expires_on: date 1579755600000 ms is not a whole number", 0),
            0u);
}

TEST(Seed003, EmailDocument) {
  const seed::Email email{"[email protected]", EmailType::work};
  EXPECT_TRUE(golden(email, R"json({"email": "[email protected]", "type": "work"})json",
                     R"json({
    "email": "[email protected]",
    "type": "work"
  })json"));
}

TEST(Seed003, CourseDocumentWithoutId) {
  const seed::CourseInfo physics{"Physics 101", "Department of Physics", 7};
  EXPECT_TRUE(golden(physics,
                     R"json({"name": "Physics 101", "department": "Department of Physics",
                             "points": {"$numberInt": "7"}})json",
                     R"json({
    "name": "Physics 101",
    "department": "Department of Physics",
    "points": 7
  })json"));
}

TEST(Seed003, StudentWithEmbeddedCourses) {
  const seed::StudentWithEmbeddedCourses sammy{
      kSammy,
      "Sammy",
      "Shark",
      kEmails,
      {seed::CourseInfo{"Physics 101", "Department of Physics", 7},
       seed::CourseInfo{"Introduction to Cloud Computing", "Department of Computer Science", 4}}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ],
    "courses": [
      {"name": "Physics 101", "department": "Department of Physics", "points": {"$numberInt": "7"}},
      {"name": "Introduction to Cloud Computing", "department": "Department of Computer Science",
       "points": {"$numberInt": "4"}}
    ]
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
        {
            "email": "[email protected]",
            "type": "work"
        },
        {
            "email": "[email protected]",
            "type": "home"
        }
    ],
    "courses": [
        {
            "name": "Physics 101",
            "department": "Department of Physics",
            "points": 7
        },
        {
            "name": "Introduction to Cloud Computing",
            "department": "Department of Computer Science",
            "points": 4
        }
    ]
  })json"));
}

TEST(Seed003, CourseDocuments) {
  const seed::Course physics{kPhysics, "Physics 101", "Department of Physics", 7};
  const seed::Course cloud{kCloud, "Introduction to Cloud Computing", "Department of Computer Science", 4};
  EXPECT_TRUE(golden(physics, R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836170a"},
    "name": "Physics 101",
    "department": "Department of Physics",
    "points": {"$numberInt": "7"}
  })json",
                     R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836170a"},
    "name": "Physics 101",
    "department": "Department of Physics",
    "points": 7
  })json"));
  EXPECT_TRUE(golden(cloud, R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836170b"},
    "name": "Introduction to Cloud Computing",
    "department": "Department of Computer Science",
    "points": {"$numberInt": "4"}
  })json",
                     R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836170b"},
    "name": "Introduction to Cloud Computing",
    "department": "Department of Computer Science",
    "points": 4
  })json"));
}

TEST(Seed003, StudentWithCourseIds) {
  const seed::Student sammy{kSammy, "Sammy", "Shark", kEmails, {kPhysics, kCloud}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ],
    "courses": [{"$oid": "61741c9cbc9ec583c836170a"}, {"$oid": "61741c9cbc9ec583c836170b"}]
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
        {
            "email": "[email protected]",
            "type": "work"
        },
        {
            "email": "[email protected]",
            "type": "home"
        }
    ],
    "courses": [
        {"$oid": "61741c9cbc9ec583c836170a"},
        {"$oid": "61741c9cbc9ec583c836170b"}
    ]
  })json"));
}

TEST(Seed003, MessageBoardMessage) {
  const seed::Message message{
      kMessage, "Books on kinematics and dynamics",
      "Hello! Could you recommend good introductory books covering the topics of kinematics and dynamics? Thanks!",
      instant(2021, 7, 23, 16, 3, 21)};
  EXPECT_TRUE(golden(message, R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836174c"},
    "subject": "Books on kinematics and dynamics",
    "message": "Hello! Could you recommend good introductory books covering the topics of kinematics and dynamics? Thanks!",
    "posted_on": {"$date": {"$numberLong": "1627056201000"}}
  })json",
                     R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836174c"},
    "subject": "Books on kinematics and dynamics",
    "message": "Hello! Could you recommend good introductory books covering the topics of kinematics and dynamics? Thanks!",
    "posted_on": {"$date": "2021-07-23T16:03:21Z"}
  })json"));
}

TEST(Seed003, StudentWithEmbeddedMessages) {
  // The seed elides further messages (". . .").
  const seed::StudentWithEmbeddedMessages sammy{
      kSammy,
      "Sammy",
      "Shark",
      kEmails,
      {kPhysics, kCloud},
      {seed::BoardMessage{"Books on kinematics and dynamics",
                          "Hello! Could you recommend good introductory books covering the topics of kinematics and "
                          "dynamics? Thanks!",
                          instant(2021, 7, 23, 16, 3, 21)}}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ],
    "courses": [{"$oid": "61741c9cbc9ec583c836170a"}, {"$oid": "61741c9cbc9ec583c836170b"}],
    "message_board_messages": [
      {
        "subject": "Books on kinematics and dynamics",
        "message": "Hello! Could you recommend good introductory books covering the topics of kinematics and dynamics? Thanks!",
        "posted_on": {"$date": {"$numberLong": "1627056201000"}}
      }
    ]
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
        {
            "email": "[email protected]",
            "type": "work"
        },
        {
            "email": "[email protected]",
            "type": "home"
        }
    ],
    "courses": [
        {"$oid": "61741c9cbc9ec583c836170a"},
        {"$oid": "61741c9cbc9ec583c836170b"}
    ],
    "message_board_messages": [
        {
            "subject": "Books on kinematics and dynamics",
            "message": "Hello! Could you recommend good introductory books covering the topics of kinematics and dynamics? Thanks!",
            "posted_on": {"$date": "2021-07-23T16:03:21Z"}
        }
    ]
  })json"));
}

TEST(Seed003, StudentWithMessageReferences) {
  const seed::StudentWithMessageRefs sammy{kSammy, "Sammy", "Shark", kEmails, {kPhysics, kCloud}, {kMessage}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ],
    "courses": [{"$oid": "61741c9cbc9ec583c836170a"}, {"$oid": "61741c9cbc9ec583c836170b"}],
    "message_board_messages": [{"$oid": "61741c9cbc9ec583c836174c"}]
  })json",
                     R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
        {
            "email": "[email protected]",
            "type": "work"
        },
        {
            "email": "[email protected]",
            "type": "home"
        }
    ],
    "courses": [
        {"$oid": "61741c9cbc9ec583c836170a"},
        {"$oid": "61741c9cbc9ec583c836170b"}
    ],
    "message_board_messages": [
        {"$oid": "61741c9cbc9ec583c836174c"}
    ]
  })json"));
}

TEST(Seed003, MessageWithPostedBy) {
  const seed::MessageWithAuthor message{
      kMessage, "Books on kinematics and dynamics",
      "Hello! Could you recommend a good introductory books covering the topics of kinematics and dynamics? Thanks!",
      instant(2021, 7, 23, 16, 3, 21), kSammy};
  EXPECT_TRUE(golden(message, R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836174c"},
    "subject": "Books on kinematics and dynamics",
    "message": "Hello! Could you recommend a good introductory books covering the topics of kinematics and dynamics? Thanks!",
    "posted_on": {"$date": {"$numberLong": "1627056201000"}},
    "posted_by": {"$oid": "612d1e835ebee16872a109a4"}
  })json",
                     R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836174c"},
    "subject": "Books on kinematics and dynamics",
    "message": "Hello! Could you recommend a good introductory books covering the topics of kinematics and dynamics? Thanks!",
    "posted_on": {"$date": "2021-07-23T16:03:21Z"},
    "posted_by": {"$oid": "612d1e835ebee16872a109a4"}
  })json"));
}

}  // namespace golden_seed003_test
