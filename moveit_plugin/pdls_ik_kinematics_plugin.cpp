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

// MoveIt's kinematics::KinematicsBase for pdls_ik: a shell around the Python solver
// pdls_ik.ros_logic.kinematics_plugin.KinematicsPlugin, run in an interpreter embedded in the
// host process (move_group, rviz2, a MoveIt Servo node). No IK logic lives here: the shell turns
// MoveIt's robot model, group, poses and seeds into plain numbers, calls the solver with the time
// left, and runs MoveIt's solution callback (its collision check) on each answer, asking the
// solver for a new attempt while the callback refuses and time remains.
//
// Threads: MoveIt calls one instance from any thread (every RobotState of a robot model asks the
// same one). Calls enter Python one at a time, in the order they came (FifoLock): threads queued
// on the GIL instead hand it over at Python's switch interval (5 ms), and calls of 0.1 ms took
// up to 38 ms with four threads (Humble lab). A call's wait counts against its own timeout.
// Every call into Python holds the GIL (released between calls); the solution callback runs
// without either.

#include <dlfcn.h>
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#if __has_include(<moveit/kinematics_base/kinematics_base.hpp>)
#include <moveit/kinematics_base/kinematics_base.hpp>
#include <moveit/robot_model/robot_model.hpp>
#else
#include <moveit/kinematics_base/kinematics_base.h>
#include <moveit/robot_model/robot_model.h>
#endif
#include <pluginlib/class_list_macros.hpp>
#include <rclcpp/rclcpp.hpp>
#include <urdf_model/model.h>

namespace py = pybind11;

namespace pdls_ik
{
namespace
{
rclcpp::Logger logger()
{
  return rclcpp::get_logger("pdls_ik.kinematics_plugin");
}

std::mutex interpreter_mutex;

// Start Python once per process (never finalized: numba and NumPy do not survive a restart).
bool ensurePython(std::string& error)
{
  std::lock_guard<std::mutex> lock(interpreter_mutex);
  if (Py_IsInitialized())
    return true;  // the host is Python, or another instance started it
  // pluginlib opened this library (and libpython with it) RTLD_LOCAL: extension modules such as
  // NumPy's resolve libpython's symbols globally, so promote it
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&Py_Initialize), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  try
  {
    py::initialize_interpreter(false);  // the host keeps its signal handlers
  }
  catch (const std::exception& e)
  {
    error = e.what();
    return false;
  }
  PyEval_SaveThread();  // release the GIL: each call takes it
  return true;
}

// A lock that serves its waiters in the order they came (std::mutex does not: with four threads
// one call waited 190 ms while the others took the mutex again and again).
class FifoLock
{
public:
  void lock()
  {
    std::unique_lock<std::mutex> guard(mutex_);
    const unsigned long long ticket = next_++;
    turn_.wait(guard, [&] { return serving_ == ticket; });
  }

  void unlock()
  {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      ++serving_;
    }
    turn_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable turn_;
  unsigned long long next_ = 0, serving_ = 0;
};

const char* jointType(int type)
{
  switch (type)
  {
    case urdf::Joint::REVOLUTE:
      return "revolute";
    case urdf::Joint::CONTINUOUS:
      return "continuous";
    case urdf::Joint::PRISMATIC:
      return "prismatic";
    case urdf::Joint::FLOATING:
      return "floating";
    case urdf::Joint::PLANAR:
      return "planar";
    default:
      return "fixed";
  }
}

// The robot as tables for pdls_ik.ros_logic.kinematics_plugin.urdf_of_model (GIL held).
std::pair<py::list, py::list> robotTables(const urdf::ModelInterface& model)
{
  py::list links, joints;
  for (const auto& entry : model.links_)
    links.append(entry.first);
  for (const auto& entry : model.joints_)
  {
    const urdf::Joint& joint = *entry.second;
    py::dict row;
    row["name"] = joint.name;
    row["type"] = jointType(joint.type);
    row["parent"] = joint.parent_link_name;
    row["child"] = joint.child_link_name;
    const urdf::Pose& origin = joint.parent_to_joint_origin_transform;
    double roll, pitch, yaw;
    origin.rotation.getRPY(roll, pitch, yaw);
    row["xyz"] = std::vector<double>{ origin.position.x, origin.position.y, origin.position.z };
    row["rpy"] = std::vector<double>{ roll, pitch, yaw };
    row["axis"] = std::vector<double>{ joint.axis.x, joint.axis.y, joint.axis.z };
    if (joint.limits)
    {
      if (joint.type != urdf::Joint::CONTINUOUS)
      {
        row["lower"] = joint.limits->lower;
        row["upper"] = joint.limits->upper;
      }
      row["velocity"] = joint.limits->velocity;
      row["effort"] = joint.limits->effort;
    }
    if (joint.mimic)
      row["mimic"] = py::make_tuple(joint.mimic->joint_name, joint.mimic->multiplier, joint.mimic->offset);
    joints.append(row);
  }
  return { links, joints };
}

py::object parameterValue(const rclcpp::ParameterValue& value)
{
  switch (value.get_type())
  {
    case rclcpp::ParameterType::PARAMETER_BOOL:
      return py::bool_(value.get<bool>());
    case rclcpp::ParameterType::PARAMETER_INTEGER:
      return py::int_(value.get<int64_t>());
    case rclcpp::ParameterType::PARAMETER_DOUBLE:
      return py::float_(value.get<double>());
    case rclcpp::ParameterType::PARAMETER_STRING:
      return py::str(value.get<std::string>());
    case rclcpp::ParameterType::PARAMETER_BOOL_ARRAY:
      return py::cast(value.get<std::vector<bool>>());
    case rclcpp::ParameterType::PARAMETER_INTEGER_ARRAY:
      return py::cast(value.get<std::vector<int64_t>>());
    case rclcpp::ParameterType::PARAMETER_DOUBLE_ARRAY:
      return py::cast(value.get<std::vector<double>>());
    case rclcpp::ParameterType::PARAMETER_STRING_ARRAY:
      return py::cast(value.get<std::vector<std::string>>());
    default:
      return py::none();
  }
}
}  // namespace

// hidden as pybind11's types are (pluginlib reaches it through the exported factory)
class __attribute__((visibility("hidden"))) PDLSKinematicsPlugin : public kinematics::KinematicsBase
{
public:
  ~PDLSKinematicsPlugin() override
  {
    if (solver_ && Py_IsInitialized())
    {
      py::gil_scoped_acquire gil;
      solver_ = py::object();
    }
    else
    {
      solver_.release();  // no interpreter to give it back to
    }
  }

  bool initialize(const rclcpp::Node::SharedPtr& node, const moveit::core::RobotModel& robot_model,
                  const std::string& group_name, const std::string& base_frame,
                  const std::vector<std::string>& tip_frames, double search_discretization) override
  {
    node_ = node;
    storeValues(robot_model, group_name, base_frame, tip_frames, search_discretization);
    const moveit::core::JointModelGroup* jmg = robot_model.getJointModelGroup(group_name);
    std::string why;
    if (jmg == nullptr || !supportsGroup(jmg, &why))
    {
      RCLCPP_ERROR(logger(), "group '%s': %s", group_name.c_str(), jmg ? why.c_str() : "no such group");
      return false;
    }
    joint_names_.clear();
    for (const moveit::core::JointModel* joint : jmg->getActiveJointModels())
      joint_names_.push_back(joint->getName());
    link_names_ = jmg->getLinkModelNames();
    if (!ensurePython(why))
    {
      RCLCPP_ERROR(logger(), "cannot start Python: %s", why.c_str());
      return false;
    }
    py::gil_scoped_acquire gil;
    try
    {
      py::module_ module = py::module_::import("pdls_ik.ros_logic.kinematics_plugin");
      auto [links, joints] = robotTables(*robot_model.getURDF());
      py::object urdf = module.attr("urdf_of_model")(robot_model.getURDF()->getName(), links, joints);
      solver_ = module.attr("KinematicsPlugin")(urdf, group_name, joint_names_, base_frame, tip_frames,
                                                groupParameters(group_name));
      RCLCPP_INFO(logger(), "group '%s': %zu joints, %zu tip(s), base '%s', %s backend", group_name.c_str(),
                  joint_names_.size(), tip_frames.size(), base_frame.c_str(),
                  solver_.attr("backend").cast<std::string>().c_str());
    }
    catch (const py::error_already_set& e)
    {
      RCLCPP_ERROR(logger(), "group '%s': %s", group_name.c_str(), e.what());
      return false;
    }
    return true;
  }

  bool supportsGroup(const moveit::core::JointModelGroup* jmg, std::string* error_text_out = nullptr) const override
  {
    for (const moveit::core::JointModel* joint : jmg->getActiveJointModels())
    {
      if (joint->getVariableCount() != 1)
      {
        if (error_text_out)
          *error_text_out = "joint '" + joint->getName() + "' has " + std::to_string(joint->getVariableCount()) +
                            " variables: pdls_ik solves revolute, continuous and prismatic joints";
        return false;
      }
    }
    return !jmg->getActiveJointModels().empty();
  }

  bool getPositionIK(const geometry_msgs::msg::Pose& ik_pose, const std::vector<double>& ik_seed_state,
                     std::vector<double>& solution, moveit_msgs::msg::MoveItErrorCodes& error_code,
                     const kinematics::KinematicsQueryOptions& /*options*/) const override
  {
    // the solution closest to the seed: one attempt from it, no new seeds
    return search({ ik_pose }, ik_seed_state, default_timeout_, {}, solution, IKCallbackFn(), error_code, 1);
  }

  bool searchPositionIK(const geometry_msgs::msg::Pose& ik_pose, const std::vector<double>& ik_seed_state,
                        double timeout, std::vector<double>& solution, moveit_msgs::msg::MoveItErrorCodes& error_code,
                        const kinematics::KinematicsQueryOptions& /*options*/) const override
  {
    return search({ ik_pose }, ik_seed_state, timeout, {}, solution, IKCallbackFn(), error_code);
  }

  bool searchPositionIK(const geometry_msgs::msg::Pose& ik_pose, const std::vector<double>& ik_seed_state,
                        double timeout, const std::vector<double>& consistency_limits,
                        std::vector<double>& solution, moveit_msgs::msg::MoveItErrorCodes& error_code,
                        const kinematics::KinematicsQueryOptions& /*options*/) const override
  {
    return search({ ik_pose }, ik_seed_state, timeout, consistency_limits, solution, IKCallbackFn(), error_code);
  }

  bool searchPositionIK(const geometry_msgs::msg::Pose& ik_pose, const std::vector<double>& ik_seed_state,
                        double timeout, std::vector<double>& solution, const IKCallbackFn& solution_callback,
                        moveit_msgs::msg::MoveItErrorCodes& error_code,
                        const kinematics::KinematicsQueryOptions& /*options*/) const override
  {
    return search({ ik_pose }, ik_seed_state, timeout, {}, solution, solution_callback, error_code);
  }

  bool searchPositionIK(const geometry_msgs::msg::Pose& ik_pose, const std::vector<double>& ik_seed_state,
                        double timeout, const std::vector<double>& consistency_limits,
                        std::vector<double>& solution, const IKCallbackFn& solution_callback,
                        moveit_msgs::msg::MoveItErrorCodes& error_code,
                        const kinematics::KinematicsQueryOptions& /*options*/) const override
  {
    return search({ ik_pose }, ik_seed_state, timeout, consistency_limits, solution, solution_callback, error_code);
  }

  bool searchPositionIK(const std::vector<geometry_msgs::msg::Pose>& ik_poses,
                        const std::vector<double>& ik_seed_state, double timeout,
                        const std::vector<double>& consistency_limits, std::vector<double>& solution,
                        const IKCallbackFn& solution_callback, moveit_msgs::msg::MoveItErrorCodes& error_code,
                        const kinematics::KinematicsQueryOptions& /*options*/,
                        const moveit::core::RobotState* /*context_state*/) const override
  {
    return search(ik_poses, ik_seed_state, timeout, consistency_limits, solution, solution_callback, error_code);
  }

  bool getPositionFK(const std::vector<std::string>& link_names, const std::vector<double>& joint_angles,
                     std::vector<geometry_msgs::msg::Pose>& poses) const override
  {
    std::vector<std::array<double, 7>> values;
    {
      std::lock_guard<FifoLock> one_at_a_time(call_lock_);
      py::gil_scoped_acquire gil;
      try
      {
        values = solver_.attr("forward")(link_names, joint_angles).cast<std::vector<std::array<double, 7>>>();
      }
      catch (const py::error_already_set& e)
      {
        RCLCPP_ERROR(logger(), "getPositionFK: %s", e.what());
        return false;
      }
    }
    poses.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
      const auto& v = values[i];
      poses[i].position.x = v[0];
      poses[i].position.y = v[1];
      poses[i].position.z = v[2];
      poses[i].orientation.x = v[3];
      poses[i].orientation.y = v[4];
      poses[i].orientation.z = v[5];
      poses[i].orientation.w = v[6];
    }
    return true;
  }

  const std::vector<std::string>& getJointNames() const override
  {
    return joint_names_;
  }

  const std::vector<std::string>& getLinkNames() const override
  {
    return link_names_;
  }

private:
  using Code = moveit_msgs::msg::MoveItErrorCodes;

  // Attempts until one answer passes the solution callback, a request error, or the timeout
  // (a timeout already spent still gets one attempt, as KDL makes one iteration).
  bool search(const std::vector<geometry_msgs::msg::Pose>& poses, const std::vector<double>& seed, double timeout,
              const std::vector<double>& consistency_limits, std::vector<double>& solution,
              const IKCallbackFn& solution_callback, Code& error_code, int most_attempts = -1) const
  {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::array<double, 7>> targets;
    for (const auto& p : poses)
      targets.push_back({ p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y,
                          p.orientation.z, p.orientation.w });
    error_code.val = Code::TIMED_OUT;
    for (int attempt = 0; most_attempts < 0 || attempt < most_attempts; ++attempt)
    {
      std::unique_lock<FifoLock> one_at_a_time(call_lock_);
      const double left = timeout - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (attempt > 0 && left <= 0.0)
        break;
      std::tuple<int, std::vector<double>, std::string> reply;
      {
        py::gil_scoped_acquire gil;
        try
        {
          reply = solver_.attr("search")(targets, seed, left, consistency_limits, attempt)
                      .cast<std::tuple<int, std::vector<double>, std::string>>();
        }
        catch (const py::error_already_set& e)
        {
          RCLCPP_ERROR(logger(), "searchPositionIK: %s", e.what());
          error_code.val = Code::FAILURE;
          return false;
        }
      }
      one_at_a_time.unlock();
      error_code.val = std::get<0>(reply);
      if (error_code.val == Code::SUCCESS)
      {
        if (solution_callback)
          solution_callback(poses.front(), std::get<1>(reply), error_code);
        if (error_code.val == Code::SUCCESS)
        {
          solution = std::move(std::get<1>(reply));
          return true;
        }
      }
      else if (error_code.val != Code::NO_IK_SOLUTION && error_code.val != Code::TIMED_OUT)
      {
        RCLCPP_WARN(logger(), "searchPositionIK: %s", std::get<2>(reply).c_str());
        return false;  // the request itself is wrong: no new seed helps
      }
    }
    return false;
  }

  // kinematics.yaml's keys of the group: robot_description_kinematics.<group>.<key>
  py::dict groupParameters(const std::string& group_name) const
  {
    py::dict out;
    if (!node_)
      return out;
    const std::string prefix = "robot_description_kinematics." + group_name + ".";
    for (const auto& entry : node_->get_node_parameters_interface()->get_parameter_overrides())
      if (entry.first.rfind(prefix, 0) == 0)
        out[py::str(entry.first.substr(prefix.size()))] = parameterValue(entry.second);
    for (const auto& name : node_->list_parameters({ prefix.substr(0, prefix.size() - 1) }, 0).names)
      if (name.rfind(prefix, 0) == 0)
        out[py::str(name.substr(prefix.size()))] = parameterValue(node_->get_parameter(name).get_parameter_value());
    return out;
  }

  py::object solver_;
  mutable FifoLock call_lock_;  // calls into Python, one at a time, first come first served
  std::vector<std::string> joint_names_;
  std::vector<std::string> link_names_;
};
}  // namespace pdls_ik

PLUGINLIB_EXPORT_CLASS(pdls_ik::PDLSKinematicsPlugin, kinematics::KinematicsBase)
