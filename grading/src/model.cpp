#include "cudalab/grading/model.hpp"

namespace cudalab::grading {

double ClassResults::total(const std::string& student) const {
  double sum = 0;
  for (const auto& e : exercises) {
    if (const Attempt* a = find(student, e)) sum += a->score.total;
  }
  return sum;
}

double ClassResults::max_total() const {
  double sum = 0;
  for (const auto& [exercise, points] : max_points) sum += points;
  return sum;
}

const Attempt* ClassResults::find(const std::string& student, const std::string& exercise) const {
  const auto it = attempts.find({student, exercise});
  return it == attempts.end() ? nullptr : &it->second;
}

}  // namespace cudalab::grading
