// Students, courses and the message board (seed 003):
//   - e-mails: a few per student, read with the student: embedded (one-to-few);
//   - courses: a student takes several, a course has many students, and courses are
//     documents of their own: the student keeps the ids of its courses (child
//     references, many-to-many), resolved with one $in query;
//   - message-board posts: a student writes an unbounded number, so each message names its
//     author (`posted_by`, a parent reference) and a student's messages are queried.
//
// The seed shows Sammy Shark; a second student, Mary Ray, takes Physics 101 too, so
// that a course is shared between students.
#include "example_support.hpp"

#include <odm/join/join.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

// Outside the anonymous namespace: clang 14 spells an enumerator of an enum declared in
// one as "(anonymous namespace)::EmailType::work", which odm's enum reflection mistakes
// for a cast and then cannot store the value.
namespace school {
enum class EmailType { work, home };
}  // namespace school

namespace {

using Timestamp = std::chrono::system_clock::time_point;
using school::EmailType;

struct Email {
  std::string email;
  EmailType type;  // stored by name: "work", "home"
  bool operator==(const Email&) const = default;
};

struct Course {
  odm::ObjectId id;
  std::string name;
  std::string department;
  std::int32_t points;
  bool operator==(const Course&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "courses";
  };
};

struct Student {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  odm::RefMany<Course> courses;
  struct odm_model {
    static constexpr std::string_view collection = "students";
    // Who takes a course: {courses: id}, a multikey index on the child references.
    static constexpr auto indexes = odm::indexes(odm::index(&Student::courses));
  };
};

struct Message {
  odm::ObjectId id;
  std::string subject;
  std::string message;
  Timestamp posted_on;
  odm::ParentRef<Student> posted_by;
  struct odm_model {
    static constexpr std::string_view collection = "messages";
  };
};

Student student(odm::ObjectId id, std::string first, std::string last, std::vector<odm::Embedded<Email>> emails,
                std::vector<odm::ObjectId> courses) {
  Student s;
  s.id = id;
  s.first_name = std::move(first);
  s.last_name = std::move(last);
  s.emails = std::move(emails);
  s.courses = odm::RefMany<Course>(courses);
  return s;
}

}  // namespace

int main() {
  using example::check;
  using example::instant;
  using example::oid;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto students = db.collection<Student>();
    auto courses = db.collection<Course>();
    auto messages = db.collection<Message>();
    students.drop();
    courses.drop();
    messages.drop();

    example::step("store the courses, the students (e-mails embedded, course ids) and a message");
    const odm::ObjectId physics_id = oid("61741c9cbc9ec583c836170a");
    const odm::ObjectId cloud_id = oid("61741c9cbc9ec583c836170b");
    const std::vector<Course> stored_courses{
        Course{physics_id, "Physics 101", "Department of Physics", 7},
        Course{cloud_id, "Introduction to Cloud Computing", "Department of Computer Science", 4},
    };
    courses.insert_many(stored_courses);
    example::show_all("courses", stored_courses);
    const odm::ObjectId sammy_id = oid("612d1e835ebee16872a109a4");
    const odm::ObjectId mary_id = oid("612d1e835ebee16872a109a5");
    const std::vector<Student> stored_students{
        student(sammy_id, "Sammy", "Shark",
                {Email{"[email protected]", EmailType::work}, Email{"[email protected]", EmailType::home}},
                {physics_id, cloud_id}),
        student(mary_id, "Mary", "Ray", {Email{"[email protected]", EmailType::work}}, {physics_id}),
    };
    students.insert_many(stored_students);
    example::show_all("students", stored_students);
    const Message question{
        oid("61741c9cbc9ec583c836174c"), "Books on kinematics and dynamics",
        "Hello! Could you recommend a good introductory books covering the topics of kinematics and dynamics? Thanks!",
        instant(2021, 7, 23, 16, 3, 21), sammy_id};
    messages.insert_one(question);
    example::show("message", question);
    // {courses: 1} (declared), {posted_by: 1} (implied by the ParentRef).
    example::sync_indexes<Course, Student, Message>(db);

    example::step("students with their e-mails (embedded) and their courses (one $in query for all)");
    std::vector<Student> read = students.find({}, odm::FindOptions<Student>{}.sort(odm::sort(odm::desc(&Student::last_name)))).to_vector();
    odm::resolve(db, read, odm::with(&Student::courses));
    check(read.size() == 2 && read[0].first_name == "Sammy" && read[1].first_name == "Mary", "both students read back");
    for (const Student& s : read) {
      example::show("student", s);
      for (std::size_t i = 0; i < s.courses.size(); ++i) example::show("  courses[" + std::to_string(i) + "] ->", s.courses[i]);
    }
    const Student& sammy = read[0];
    check(sammy.emails.size() == 2 && sammy.emails[0]->type == EmailType::work && sammy.emails[1]->type == EmailType::home,
          "Sammy's two e-mails, work and home, came with Sammy");
    check(sammy.courses.size() == 2 && sammy.courses[0] == stored_courses[0] && sammy.courses[1] == stored_courses[1],
          "Sammy takes Physics 101 and Introduction to Cloud Computing");
    check(read[1].courses.size() == 1 && read[1].courses[0].name == "Physics 101", "Mary takes Physics 101");
    check(sammy.courses.targets()[0] == read[1].courses.targets()[0],
          "many-to-many: both students share the one decoded Physics 101");

    example::step("the other direction: who takes Physics 101? {courses: ObjectId(...)}");
    const auto takers = students.find(odm::Filter<Student>::raw(odm::Document::from_json(
                                          R"({"courses": {"$oid": "61741c9cbc9ec583c836170a"}})")))
                            .to_vector();
    std::cout << "students of Physics 101: " << takers.size() << "\n";
    check(takers.size() == 2, "Sammy and Mary take Physics 101");
    check(students.count(odm::Filter<Student>::raw(odm::Document::from_json(
              R"({"courses": {"$oid": "61741c9cbc9ec583c836170b"}})"))) == 1,
          "only Sammy takes Introduction to Cloud Computing");

    example::step("each student's messages: {posted_by: {$in: [students]}}, newest first");
    odm::ChildrenOptions<Message> newest;
    newest.sort_by(odm::sort(odm::desc(&Message::posted_on)));
    const auto posted = odm::children_of(db, read, &Message::posted_by, newest);
    check(posted.size() == 2, "one list per student");
    example::show_all("Sammy's messages", posted[0]);
    check(posted[0].size() == 1 && posted[0][0].subject == "Books on kinematics and dynamics" &&
              posted[0][0].posted_on == instant(2021, 7, 23, 16, 3, 21),
          "Sammy posted the seed's message");
    check(posted[1].empty(), "Mary posted nothing");

    example::step("from the message to its author: one $in query resolves posted_by");
    std::vector<Message> board = messages.find().to_vector();
    odm::resolve(db, board, odm::with(&Message::posted_by));
    check(board.size() == 1 && board[0].posted_by->first_name == "Sammy", "the message was posted by Sammy");
    example::show("posted_by ->", *board[0].posted_by);
  });
}
