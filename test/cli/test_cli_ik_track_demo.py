# Copyright 2026 pdls_ik developers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Tests of the ``pdls-ik ik``, ``track`` and ``demo`` subcommands.

Exit codes, one-line errors without tracebacks, and the demo's bag read back with rosbags.
"""
import json
import math

from conftest import REPO
import numpy as np
from pdls_ik.cli import main
import pytest


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert 'Traceback' not in out + err
    return code, out, err


def test_ik_success_json_and_text(capsys):
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                        '0', '--timeout', '5', '--json')
    data = json.loads(out)
    assert code == 0 and data['success'] is True and data['status'] == 'converged'
    assert set(data['q']) >= {f'panda_joint{i}' for i in range(1, 8)}
    assert data['position_error'] <= 1e-5 and data['orientation_error'] <= 1e-4
    code, out, _ = _run(capsys, 'ik', 'panda', '--tip', 'panda_link8', '--pose', '0.4', '0.1',
                        '0.5', '1', '0', '0', '0', '--position-only', '--timeout', '5')
    assert code == 0 and out.startswith('solution: converged') and 'panda_joint4' in out


def test_ik_no_solution_exit_1(capsys):
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', '3', '0', '0.5', '1', '0', '0', '0',
                        '--timeout', '0.01')
    assert code == 1 and out.startswith('NO SOLUTION')


@pytest.mark.parametrize('argv, fragment', [
    (['ik', 'panda', '--pose', 'nan', '0', '0.5', '1', '0', '0', '0'], 'position.x'),
    (['ik', 'panda', '--pose', '0.4', '0', '0.5', '0', '0', '0', '0'], 'zero quaternion'),
    (['ik', 'panda', '--tip', 'nolink', '--pose', '0.4', '0', '0.5', '1', '0', '0', '0'],
     "link 'nolink'"),
    (['ik', 'no_such.urdf', '--tip', 'a', '--pose', '0.4', '0', '0.5', '1', '0', '0', '0'],
     'no_such.urdf'),
    (['ik', 'panda', '--pose', '0.4', '0', '0.5', '1', '0', '0', '0', '--seed', '0', '1'],
     'seed: expected 8'),
    (['ik', 'panda', '--pose', '0.4', '0', '0.5', '1', '0', '0', '0', '--timeout', '0'],
     '--timeout'),
])
def test_ik_bad_input_exit_2_one_line(capsys, argv, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and fragment in err
    assert len(err.strip().splitlines()) == 1 and err.startswith('pdls-ik ik: error:')


def test_an_unknown_tip_names_the_closest_links_and_the_tips_of_the_tree(capsys):
    code, out, err = _run(capsys, 'ik', 'ur5', '--tip', 'no_such_link', '--pose', '0.3', '0.1',
                          '0.4', '0', '0', '0', '1')
    assert code == 2 and err == (
        "pdls-ik ik: error: link 'no_such_link': unknown link (not found in robot 'ur5'; "
        'closest names: base_link, shoulder_link, ee_link; the tips of its tree: ee_link, '
        'base, tool0)\n')


def test_track_skips_bad_rows_and_goes_on(capsys, tmp_path):
    goals = tmp_path / 'goals.csv'
    goals.write_text('# timed goals\nt,x,y,z,qx,qy,qz,qw\n0,0.4,0.1,0.5,1,0,0,0\n'
                     '0.2,0.4,abc,0.5,1,0,0,0\n0.4,0.42,0.1,0.48,1,0,0,0\n'
                     '0.5,0.4,0.1,0.5,0,0,0,0\n0.3,0.4,0.1,0.5,1,0,0,0\n')
    code, out, err = _run(capsys, 'track', 'panda', '--goals', str(goals), '--rate', '50',
                          '--settle', '0.5', '--out', str(tmp_path / 'out'), '--no-progress')
    assert code == 0
    assert "line 4, column y: 'abc' is not a number" in err     # lines of the file
    assert 'line 6, column qx..qw' in err and 'zero quaternion' in err
    assert 'line 7, column t: time 0.3 goes backwards' in err
    assert 'goals: 2 used, 3 skipped' in out and 'joint-limit violations:  0' in out
    assert (tmp_path / 'out' / 'track_bag' / 'metadata.yaml').is_file()
    assert (tmp_path / 'out' / 'track_bag' / 'track_bag.mcap').is_file()
    js = tmp_path / 'goals.json'
    js.write_text(json.dumps({'goals': [{'t': 0, 'position': [0.4, 0.1, 0.5],
                                         'orientation_xyzw': [1, 0, 0, 0]},
                                        {'t': 0.1, 'position': [0.4, None, 0.5],
                                         'orientation_xyzw': [1, 0, 0, 0]}]}))
    code, out, err = _run(capsys, 'track', 'panda', '--goals', str(js), '--rate', '50',
                          '--settle', '0.2', '--out', str(tmp_path / 'o2'), '--no-progress')
    assert code == 0 and 'goal 2, column y: missing value' in err
    huge = tmp_path / 'huge.csv'
    huge.write_text('t,x,y,z,qx,qy,qz,qw\n0,0.4,0.1,0.5,1,0,0,0\n0.1,1e300,0.1,0.5,1,0,0,0\n'
                    '0.2,0.4,0.1,0.5,1e300,0,0,1e300\n')
    code, out, err = _run(capsys, 'track', 'panda', '--goals', str(huge), '--rate', '50',
                          '--settle', '0.2', '--out', str(tmp_path / 'o3'), '--no-progress')
    assert 'line 3, column x..z: invalid goal: position.x = 1e+300 m is out of range' in err
    assert 'goals: 2 used, 1 skipped' in out and 'overflow' not in err
    bad = tmp_path / 'bad.csv'
    bad.write_text('a,b\n1,2\n')
    code, _, err = _run(capsys, 'track', 'panda', '--goals', str(bad), '--no-progress')
    assert code == 2 and 'CSV header lacks column(s) t, x' in err


def test_demo_writes_bag_that_reads_back(capsys, tmp_path):
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    out = tmp_path / 'out'
    code, text, _ = _run(capsys, 'demo', '--out', str(out), '--duration', '1.0', '--rate',
                         '50', '--no-progress')
    assert code == 0
    for key in ('cycles:                  50', 'success rate:', 'p50', 'p99',
                'max position error:', 'max orientation error:', 'joint-limit violations:  0',
                'largest joint step:'):
        assert key in text
    assert (out / 'demo.png').stat().st_size > 10000
    bag = out / 'demo_bag'
    assert list(bag.glob('*.mcap'))
    with AnyReader([bag], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        topics = {c.topic: (c.msgtype, c.msgcount) for c in reader.connections}
        assert topics == {'/goal_pose': ('geometry_msgs/msg/PoseStamped', 50),
                          '/joint_states': ('sensor_msgs/msg/JointState', 50),
                          '/joint_trajectory': ('trajectory_msgs/msg/JointTrajectory', 50),
                          '/diagnostics': ('diagnostic_msgs/msg/DiagnosticArray', 50)}
        stamps, names, levels, goal0 = [], None, [], None
        for conn, t_ns, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            if conn.topic == '/joint_states':
                names = list(msg.name)
                assert msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec == t_ns
                stamps.append(t_ns)
            if conn.topic == '/goal_pose' and goal0 is None:
                goal0 = msg
            if conn.topic == '/diagnostics':
                levels.append(int(msg.status[0].level))
                keys = {kv.key for kv in msg.status[0].values}
                assert {'status', 'iterations', 'min singular value'} <= keys
            if conn.topic == '/joint_trajectory':
                # the node's stream (stamp zero): the arm's joints, from the cycle's commanded
                # state (time 0) to one period ahead, continued to rest
                assert list(msg.joint_names) == [f'panda_joint{i}' for i in range(1, 8)]
                assert [p.time_from_start.nanosec for p in msg.points[:2]] == [0, 20_000_000]
                assert not any(msg.points[-1].velocities)
    assert names[:7] == [f'panda_joint{i}' for i in range(1, 8)]
    assert 'panda_finger_joint2' in names                      # mimic joint listed too
    assert np.allclose(np.diff(stamps), 0.02e9, atol=2)        # 50 Hz, exact stamps
    assert goal0.header.frame_id == 'panda_link0'
    assert set(levels) <= {0, 1, 2}


def test_demo_bad_arguments(capsys):
    code, _, err = _run(capsys, 'demo', '--duration', '-1', '--no-progress')
    assert code == 2 and '--duration' in err


def _closure_file(tmp_path):
    path = tmp_path / 'closure.yaml'
    path.write_text('closures: [{name: loop_B, link_a: rocker, link_b: coupler, '
                    'frame_a: [0.2, 0, 0], frame_b: [0.25, 0, 0], mode: position}]\n')
    return path


def test_ik_with_tasks_file_closes_the_loop(capsys, tmp_path):
    """--tasks: the four-bar's crank at 0.8 rad; the passive joints close the loop."""
    urdf = str(REPO / 'urdf' / 'fourbar.urdf')
    half = 0.4
    code, out, _ = _run(capsys, 'ik', urdf, '--tip', 'crank', '--pose', '0', '0', '0', '0', '0',
                        str(math.sin(half)), str(math.cos(half)), '--timeout', '5', '--json',
                        '--tasks', str(_closure_file(tmp_path)))
    data = json.loads(out)
    assert code == 0 and data['success'] is True
    assert [level['name'] for level in data['levels']] == ['loop_B', 'pose:crank']
    assert data['task_errors']['loop_B'] < 1e-9
    assert abs(data['q']['crank_joint'] - 0.8) < 1e-6
    code, out, _ = _run(capsys, 'ik', urdf, '--tip', 'crank', '--pose', '0', '0', '0', '0', '0',
                        str(math.sin(half)), str(math.cos(half)), '--timeout', '5')
    assert code == 0 and 'loop_B' not in out          # without --tasks: no closure


def test_tasks_file_errors_exit_2_naming_the_key(capsys, tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('closures: [{link_a: rocker, link_b: nowhere}]\n')
    code, _, err = _run(capsys, 'ik', str(REPO / 'urdf' / 'fourbar.urdf'), '--tip', 'crank',
                        '--pose', '0', '0', '0', '0', '0', '0', '1', '--tasks', str(bad))
    assert code == 2 and 'closures[0]' in err and 'nowhere' in err
    code, _, err = _run(capsys, 'demo', '--tasks', str(tmp_path / 'none.yaml'),
                        '--out', str(tmp_path))
    assert code == 2 and 'none.yaml' in err


def test_track_with_tasks_file(capsys, tmp_path):
    goals = tmp_path / 'goals.csv'
    goals.write_text('t,x,y,z,qx,qy,qz,qw\n'
                     f'0,0,0,0,0,0,{math.sin(0.1)},{math.cos(0.1)}\n'
                     f'0.2,0,0,0,0,0,{math.sin(0.3)},{math.cos(0.3)}\n')
    code, out, _ = _run(capsys, 'track', str(REPO / 'urdf' / 'fourbar.urdf'), '--tip', 'crank',
                        '--goals', str(goals), '--tasks', str(_closure_file(tmp_path)),
                        '--out', str(tmp_path / 'out'), '--no-progress', '--settle', '1.0')
    assert code == 0 and 'goals: 2 used, 0 skipped' in out
    assert (tmp_path / 'out' / 'track_bag' / 'metadata.yaml').is_file()
    assert (tmp_path / 'out' / 'track_bag' / 'track_bag.mcap').is_file()


@pytest.mark.parametrize('violations, step, first_ok, last_ok, goal_times, code', [
    (0, 0.8, True, True, None, 0), (0, 0.8, False, True, None, 1),
    (0, 0.8, True, False, None, 1), (1, 0.8, True, True, None, 1),
    (0, 1.01, True, True, None, 1),
    # a goal file: each goal must be reached before the next one takes over
    (0, 0.8, False, True, [0.0], 0), (0, 0.8, False, True, [0.0, 0.015], 1),
    (0, 0.8, True, True, [0.0, 0.015], 0), (0, 0.8, True, False, [0.0], 1)])
def test_tracking_exit_status_reflects_the_whole_run(violations, step, first_ok, last_ok,
                                                     goal_times, code):
    """0 only when limits and velocity bounds held and every goal was reached in its time."""
    from types import SimpleNamespace

    from pdls_ik.cli.tracking import exit_status
    log = SimpleNamespace(t=[0.01, 0.02], results=[SimpleNamespace(success=first_ok),
                                                   SimpleNamespace(success=last_ok)])
    summary = {'joint_limit_violations': violations, 'largest_step_over_velocity_bound': step}
    assert exit_status(log, summary, goal_times) == code


def test_demo_exits_1_when_a_cycle_lags(capsys, tmp_path, monkeypatch):
    """A run whose path the arm cannot follow (here: a tiny velocity scaling) exits 1."""
    config = tmp_path / 'slow.yaml'
    config.write_text('pdls_ik_node:\n  ros__parameters:\n    velocity_scaling: 0.01\n')
    from pdls_ik.cli import demo
    monkeypatch.setattr(demo, 'trackable_path', lambda solver, rate, duration, robot_name:
                        (*__import__('pdls_ik.cli.demo_path', fromlist=['default_path'])
                         .default_path(solver.linkage, solver.tip_link, solver.base_link,
                                       robot_name='panda'), 'unchecked'))
    code, out, _ = _run(capsys, 'demo', '--duration', '0.5', '--config', str(config),
                        '--out', str(tmp_path / 'out'), '--no-progress')
    assert code == 1 and _lagging(out) > 0


def _lagging(out: str) -> int:
    line = next(line for line in out.splitlines() if line.startswith('lagging cycles'))
    return int(line.split(':', 1)[1].split()[0])


@pytest.mark.parametrize('command', ['ik', 'track', 'demo', 'fk', 'info', 'bench'])
def test_help_is_plain_text(capsys, command):
    """``--help`` shows no reStructuredText markup (double backquotes, :meth: roles)."""
    with pytest.raises(SystemExit) as done:
        main([command, '--help'])
    out = capsys.readouterr().out
    assert done.value.code == 0 and 'usage: pdls-ik ' + command in out
    assert '``' not in out and ':meth:' not in out and ':mod:' not in out


def test_the_compile_note_shows_only_when_kernels_are_compiled(capsys, monkeypatch):
    """The note appears when numba must compile, not when a loaded machine is merely slow."""
    from pdls_ik.ik import IKSolver
    monkeypatch.setattr(IKSolver, 'kernels_compiled', property(lambda self: False))
    code, out, err = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                          '0')
    assert code == 0 and 'panda_joint1' in out
    assert err.count('compiling the solver kernels') == 1
    monkeypatch.setattr(IKSolver, 'kernels_compiled', property(lambda self: True))
    code, out, err = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                          '0')
    assert code == 0 and 'compiling' not in err


def test_no_compile_note_before_an_input_error(capsys, monkeypatch):
    from pdls_ik.ik import IKSolver
    monkeypatch.setattr(IKSolver, 'kernels_compiled', property(lambda self: False))
    code, _, err = _run(capsys, 'ik', 'panda', '--pose', 'nan', '0.1', '0.5', '1', '0', '0', '0')
    assert code == 2 and 'compiling' not in err and len(err.strip().splitlines()) == 1


def test_kernels_compiled_reads_numba_s_cache():
    """After a warm-up the kernels are loaded; the cache index of the pose kernel exists."""
    from pdls_ik._accel import available, in_cache
    from pdls_ik.ik import IKSolver
    from pdls_ik.model import load_urdf
    from pdls_ik.resources import bundled_urdf
    if not available():
        pytest.skip('numba is not installed')
    from pdls_ik._accel.ik_solver_numba import pose_errors, solve_restarts
    solver = IKSolver(load_urdf(bundled_urdf('panda')), 'panda_link8')
    solver.warm_up()
    assert solver.kernels_compiled
    assert in_cache(solve_restarts, pose_errors)
    assert not in_cache(object())           # not a numba function: not cached


@pytest.mark.parametrize('extra, fragment', [
    (['--settle', '-1'], '--settle: -1.0 must be in [0, 3600] seconds'),
    (['--rate', '0'], '--rate: 0.0 must be in (0, 10000] Hz'),
    (['--out', '{file}'], "--out: '{file}' is a file, not a folder"),
    (['--out', '{file}/sub'], "--out: cannot create the folder '{file}/sub': Not a directory"),
])
def test_track_checks_its_options_before_tracking(capsys, tmp_path, extra, fragment):
    """A bad option is one line and exit 2 before any work, naming the option."""
    goals = tmp_path / 'goals.csv'
    goals.write_text('t,x,y,z,qx,qy,qz,qw\n0,0.4,0.1,0.5,1,0,0,0\n')
    a_file = tmp_path / 'taken'
    a_file.write_text('not a folder')
    extra = [x.format(file=a_file) for x in extra]
    code, out, err = _run(capsys, 'track', 'panda', '--goals', str(goals), '--no-progress',
                          *extra)
    assert code == 2 and out == ''
    assert err.strip() == f'pdls-ik track: error: {fragment.format(file=a_file)}'


@pytest.mark.parametrize('option, content, message', [
    ('--config', None, "configuration file '{path}': cannot read it: No such file or directory"),
    ('--config', 'a: [1, 2\nb: }\n', "configuration file '{path}': invalid YAML: expected ',' "
                                     "or ']', but got ':' at line 2, column 2"),
    ('--tasks', 'a: [1, 2\nb: }\n', "task config '{path}': invalid YAML (expected ',' or ']', "
                                    "but got ':' at line 2, column 2)"),
])
def test_unreadable_or_broken_files_are_one_line(capsys, tmp_path, option, content, message):
    path = tmp_path / 'file.yaml'
    if content is not None:
        path.write_text(content)
    code, out, err = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                          '0', option, str(path))
    assert code == 2 and err == f'pdls-ik ik: error: {message.format(path=path)}\n'


def test_a_missing_goal_file_names_the_option(capsys, tmp_path):
    code, _, err = _run(capsys, 'track', 'panda', '--goals', str(tmp_path / 'no.csv'))
    assert code == 2
    assert err == f"pdls-ik track: error: --goals: cannot read '{tmp_path / 'no.csv'}': " \
        'No such file or directory\n'


def test_ik_says_when_the_goal_is_beyond_the_reach_of_the_chain(capsys):
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', '5', '0', '0.5', '1', '0', '0', '0',
                        '--timeout', '0.01')
    assert code == 1 and 'NO SOLUTION' in out
    assert 'hint: the goal is 5.02 m from panda_link0, beyond the reach of the chain to ' \
        'panda_link8 (at most 1.32 m)' in out
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0', '0')
    assert code == 0 and 'hint' not in out


def test_track_help_names_the_goal_file_as_its_usage_does(capsys):
    with pytest.raises(SystemExit):
        main(['track', '--help'])
    out = capsys.readouterr().out
    assert '--goals FILE' in out and 'GOALS' not in out


def test_track_and_demo_bound_joints_without_velocity_limit_by_the_default(tmp_path):
    from pdls_ik.cli.common import make_solver
    urdf = tmp_path / 'two.urdf'
    urdf.write_text(
        '<robot name="two"><link name="a"/><link name="b"/><link name="c"/>'
        '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        '<limit lower="-2" upper="2" effort="1" velocity="0"/></joint>'
        '<joint name="j2" type="prismatic"><parent link="b"/><child link="c"/>'
        '<axis xyz="1 0 0"/><limit lower="0" upper="1" effort="1"/></joint></robot>')
    config = tmp_path / 'c.yaml'
    config.write_text('default_velocity_limit: 0.7\nposition_only: true\n')
    with pytest.warns(UserWarning, match="no usable velocity limit.*: 'j1', 'j2'$"):
        solver = make_solver(str(urdf), 'c', None, str(config), tracking_rate=100.0)
    np.testing.assert_array_equal(solver.linkage.velocity_limits, [0.7, 0.1])
