// Copyright 2026 pdls_ik developers
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// MoveIt's own IK call path, for any kinematics plugin: the robot model from a URDF and an SRDF,
// the plugin loaded by pluginlib and initialized as MoveIt's kinematics plugin loader does (base
// frame, tips, the node's robot_description_kinematics.<group>.* parameters), then
// RobotState::setFromIK on N random reachable goals (FK of random joint values, seeded by
// --seed), each from the group's default state. Every answer is checked by MoveIt's own FK.
//
// usage: pdls_ik_plugin_probe URDF SRDF GROUP PLUGIN N TIMEOUT [--tips a,b] [--seed S]
//        [--threads K] [--ros-args -p robot_description_kinematics.GROUP.KEY:=VALUE ...]
// prints one line of key=value figures (times in ms, errors in m and rad; late: calls that took
// longer than TIMEOUT); exits 1 on a wrong answer (setFromIK true but FK off the goal by more
// than 1e-4 m or 1e-3 rad), 2 on bad input.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<moveit/kinematics_base/kinematics_base.hpp>)
#include <moveit/kinematics_base/kinematics_base.hpp>
#include <moveit/robot_model/robot_model.hpp>
#include <moveit/robot_state/robot_state.hpp>
#else
#include <moveit/kinematics_base/kinematics_base.h>
#include <moveit/robot_model/robot_model.h>
#include <moveit/robot_state/robot_state.h>
#endif
#include <pluginlib/class_loader.hpp>
#include <random_numbers/random_numbers.h>
#include <rclcpp/rclcpp.hpp>
#include <srdfdom/model.h>
#include <urdf_parser/urdf_parser.h>

namespace
{
std::string readFile(const std::string& path)
{
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split(const std::string& text)
{
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

double percentile(std::vector<double> values, double p)
{
  if (values.empty())
    return NAN;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5))];
}
}  // namespace

int main(int argc, char** argv)
{
  std::vector<std::string> args = rclcpp::init_and_remove_ros_arguments(argc, argv);
  if (args.size() < 7)
  {
    std::fprintf(stderr, "usage: %s URDF SRDF GROUP PLUGIN N TIMEOUT [--tips a,b] [--seed S] [--threads K]\n", argv[0]);
    return 2;
  }
  const std::string group_name = args[3], plugin_name = args[4];
  const int n = std::stoi(args[5]);
  const double timeout = std::stod(args[6]);
  std::vector<std::string> tips;
  unsigned int seed = 1;
  int threads = 1;
  for (size_t i = 7; i + 1 < args.size(); i += 2)
  {
    if (args[i] == "--tips")
      tips = split(args[i + 1]);
    else if (args[i] == "--seed")
      seed = static_cast<unsigned int>(std::stoul(args[i + 1]));
    else if (args[i] == "--threads")
      threads = std::max(1, std::stoi(args[i + 1]));
  }
  // first: destroyed last, after every object its libraries made
  pluginlib::ClassLoader<kinematics::KinematicsBase> loader("moveit_core", "kinematics::KinematicsBase");
  auto node = rclcpp::Node::make_shared(
      "pdls_ik_plugin_probe", rclcpp::NodeOptions().automatically_declare_parameters_from_overrides(true));

  urdf::ModelInterfaceSharedPtr urdf_model = urdf::parseURDF(readFile(args[1]));
  if (!urdf_model)
  {
    std::fprintf(stderr, "%s: not a URDF\n", args[1].c_str());
    return 2;
  }
  auto srdf_model = std::make_shared<srdf::Model>();
  if (!srdf_model->initString(*urdf_model, readFile(args[2])))
  {
    std::fprintf(stderr, "%s: not an SRDF of that robot\n", args[2].c_str());
    return 2;
  }
  auto model = std::make_shared<moveit::core::RobotModel>(urdf_model, srdf_model);
  moveit::core::JointModelGroup* jmg = model->getJointModelGroup(group_name);
  if (jmg == nullptr)
  {
    std::fprintf(stderr, "no group '%s'\n", group_name.c_str());
    return 2;
  }
  // base frame and tips as MoveIt's kinematics plugin loader chooses them
  const moveit::core::JointModel* first = jmg->getJointModels().front();
  const std::string base =
      first->getParentLinkModel() ? first->getParentLinkModel()->getName() : model->getModelFrame();
  if (tips.empty())
    jmg->getEndEffectorTips(tips);
  if (tips.empty())
    tips.push_back(jmg->getLinkModelNames().back());

  const auto init_start = std::chrono::steady_clock::now();
  kinematics::KinematicsBasePtr solver = loader.createSharedInstance(plugin_name);
  if (!solver->initialize(node, *model, group_name, base, tips, 0.1))
  {
    std::fprintf(stderr, "%s: initialize failed for group '%s'\n", plugin_name.c_str(), group_name.c_str());
    return 2;
  }
  const double init_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - init_start).count();
  solver->setDefaultTimeout(timeout);
  jmg->setSolverAllocators([solver](const moveit::core::JointModelGroup*) { return solver; });

  // --threads K: K threads share the group's one solver instance (as every RobotState of one
  // RobotModel does in move_group, rviz and Servo), each with its own states and goals (seed + k)
  struct Share
  {
    std::vector<double> times_ms;
    int successes = 0, wrong = 0;
    double worst_position = 0.0, worst_angle = 0.0;
  };
  auto run = [&](int count, unsigned int share_seed, Share& out) {
    random_numbers::RandomNumberGenerator rng(share_seed);
    moveit::core::RobotState goal_state(model), state(model);
    goal_state.setToDefaultValues();
    for (int k = 0; k < count; ++k)
    {
      goal_state.setToRandomPositions(jmg, rng);
      goal_state.update();
      EigenSTL::vector_Isometry3d goals;
      for (const auto& tip : tips)
        goals.push_back(goal_state.getGlobalLinkTransform(tip));
      state.setToDefaultValues();
      state.update();
      const auto start = std::chrono::steady_clock::now();
      const bool ok = tips.size() == 1 ? state.setFromIK(jmg, goals.front(), tips.front(), timeout) :
                                         state.setFromIK(jmg, goals, tips, timeout);
      out.times_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      if (!ok)
        continue;
      ++out.successes;
      state.update();
      for (size_t t = 0; t < tips.size(); ++t)
      {
        const Eigen::Isometry3d reached = state.getGlobalLinkTransform(tips[t]);
        const double position = (reached.translation() - goals[t].translation()).norm();
        const double angle = Eigen::AngleAxisd(reached.linear().transpose() * goals[t].linear()).angle();
        out.worst_position = std::max(out.worst_position, position);
        out.worst_angle = std::max(out.worst_angle, angle);
        if (position > 1e-4 || angle > 1e-3)
          ++out.wrong;
      }
    }
  };
  std::vector<Share> shares(threads);
  std::vector<std::thread> workers;
  for (int k = 0; k < threads; ++k)
    workers.emplace_back(run, n / threads + (k < n % threads ? 1 : 0), seed + k, std::ref(shares[k]));
  for (auto& worker : workers)
    worker.join();
  std::vector<double> times_ms;
  int successes = 0, wrong = 0;
  double worst_position = 0.0, worst_angle = 0.0;
  for (const Share& share : shares)
  {
    times_ms.insert(times_ms.end(), share.times_ms.begin(), share.times_ms.end());
    successes += share.successes;
    wrong += share.wrong;
    worst_position = std::max(worst_position, share.worst_position);
    worst_angle = std::max(worst_angle, share.worst_angle);
  }
  double total = 0.0;
  int late = 0;  // calls that returned after their timeout
  for (double t : times_ms)
  {
    total += t;
    late += t > timeout * 1e3 ? 1 : 0;
  }
  std::printf("plugin=%s group=%s tips=%zu goals=%d timeout_ms=%g success=%d rate=%.4f wrong=%d "
              "mean_ms=%.4f p50_ms=%.4f p95_ms=%.4f max_ms=%.4f max_position_m=%.3g max_angle_rad=%.3g "
              "init_s=%.3f threads=%d late=%d\n",
              plugin_name.c_str(), group_name.c_str(), tips.size(), n, timeout * 1e3, successes,
              n ? static_cast<double>(successes) / n : 0.0, wrong, n ? total / n : 0.0, percentile(times_ms, 0.5),
              percentile(times_ms, 0.95), percentile(times_ms, 1.0), worst_position, worst_angle, init_s, threads, late);
  rclcpp::shutdown();
  return wrong ? 1 : 0;
}
