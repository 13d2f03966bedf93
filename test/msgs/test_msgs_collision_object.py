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

"""moveit_msgs/CollisionObject parsing (real definitions, Humble and Jazzy, through CDR)."""
from msgs_support import collision_object, default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.msgs.collision_object import collision_object_from_msg
import pytest


IDENTITY = ((0, 0, 0), (0, 0, 0, 1))


def test_primitives_planes_and_poses(store):  # noqa: F811
    ts, types = store
    msg = collision_object(ts, types, primitives=[
        (1, [0.4, 0.8, 0.04], ((0, 0, 0.05), (0, 0, 0, 1))),
        (2, [0.1], IDENTITY), (3, [0.3, 0.05], IDENTITY), (4, [0.2, 0.1], IDENTITY)],
        planes=[([0, 0, 1, -0.1], IDENTITY)])
    parsed = collision_object_from_msg(msg)
    assert (parsed.object_id, parsed.frame_id, parsed.operation, parsed.meshes) == \
        ('table', 'panda_link0', 'add', 0)
    np.testing.assert_allclose(parsed.pose[:3, 3], [0.5, 0.0, 0.2])
    assert [s.kind for s in parsed.shapes] == ['box', 'sphere', 'cylinder', 'cone', 'plane']
    assert parsed.shapes[0].dimensions == (0.4, 0.8, 0.04)
    np.testing.assert_allclose(parsed.shapes[0].pose[:3, 3], [0, 0, 0.05])
    assert parsed.shapes[4].dimensions == (0.0, 0.0, 1.0, -0.1)


def test_a_default_quaternion_is_the_identity(store):  # noqa: F811
    ts, _ = store
    msg = default_msg(ts, 'moveit_msgs/msg/CollisionObject')
    msg.id, msg.operation = 'x', 1                 # REMOVE, every field at its default
    parsed = collision_object_from_msg(roundtrip(ts, msg))
    assert parsed.operation == 'remove' and np.array_equal(parsed.pose, np.eye(4))


@pytest.mark.parametrize('kwargs, fragment', [
    ({'operation': 7}, 'collision_object.operation: 7 is not ADD'),
    ({'primitives': [(9, [1.0], IDENTITY)]}, 'collision_object.primitives[0].type: 9'),
    ({'primitives': [(1, [0.1, 0.2], IDENTITY)]},
     'collision_object.primitives[0].dimensions: a box needs 3 values'),
    ({'primitives': [(2, [float('nan')], IDENTITY)]},
     'collision_object.primitives[0].dimensions[0]: must be finite'),
    ({'planes': [([0, 0, 0, 1], IDENTITY)]}, 'collision_object.planes[0].coef: the normal'),
    ({'pose': ((float('inf'), 0, 0), (0, 0, 0, 1))}, 'collision_object.pose.position.x'),
])
def test_bad_messages_name_the_field(store, kwargs, fragment):  # noqa: F811
    ts, types = store
    with pytest.raises(InputError) as err:
        collision_object_from_msg(collision_object(ts, types, **kwargs))
    assert fragment in str(err.value)
