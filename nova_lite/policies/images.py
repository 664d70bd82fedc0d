"""Policies of /images (the image backend in Nova's image-proxy shape)."""

from oslo_policy import policy

from nova_lite.policies import base

IMAGES = 'os_compute_api:images:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=IMAGES % 'index', check_str=base.ANY_READER,
        description='List the images the caller can see: public ones and '
                    'their project\'s private ones.',
        operations=[{'method': 'GET', 'path': '/images'},
                    {'method': 'GET', 'path': '/images/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=IMAGES % 'show', check_str=base.ANY_READER,
        description='Show an image.',
        operations=[{'method': 'GET', 'path': '/images/{image_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=IMAGES % 'delete', check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete an image. The image backend decides whose '
                    'images the caller may delete: its own project\'s, or '
                    'any for administrators.',
        operations=[{'method': 'DELETE', 'path': '/images/{image_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
