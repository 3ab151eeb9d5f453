"""Django's Redis cache backend, with its client object kept.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a new
``redis.Redis`` for every command — with redis-py 8 that is a few hundred dict insertions
(its table of response callbacks) each time, a large part of a cache hit. The connection
pool is already kept; this keeps the client built on it too. Nothing else changes.
"""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property


class _Client(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    @cached_property
    def _cache(self):
        return _Client(self._servers, **self._options)
