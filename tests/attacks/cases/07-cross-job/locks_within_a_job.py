# attack: none: a program that locks its own files (SQLite on /tmp, flock, lockf) still runs
# status: ok
# stdout: sqlite 2
# stdout: flock twice
# stdout: lockf ok
# stdout: getlk F_UNLCK
#   Lock requests succeed without taking a lock (07-cross-job/*_lock_*),
#   so SQLite, which refuses to work when a lock is refused, keeps working
#   on the job's own files; the price is that locks do not exclude within a
#   job either, which this case also pins down.
import fcntl, os, sqlite3, struct
db = sqlite3.connect('/tmp/t.db')
db.execute('create table t(x)')
db.executemany('insert into t values (?)', [(1,), (2,)])
db.commit()
print('sqlite', sqlite3.connect('/tmp/t.db').execute('select count(*) from t').fetchone()[0])
a, b = os.open('/tmp/t.db', os.O_RDONLY), os.open('/tmp/t.db', os.O_RDONLY)
fcntl.flock(a, fcntl.LOCK_EX | fcntl.LOCK_NB)
fcntl.flock(b, fcntl.LOCK_EX | fcntl.LOCK_NB)
print('flock twice')
w = os.open('/tmp/lockf', os.O_WRONLY | os.O_CREAT)
fcntl.lockf(w, fcntl.LOCK_EX | fcntl.LOCK_NB)
print('lockf ok')
typ = struct.unpack('hhqqi', fcntl.fcntl(w, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0)))[0]
print('getlk', {fcntl.F_RDLCK: 'F_RDLCK', fcntl.F_WRLCK: 'F_WRLCK', fcntl.F_UNLCK: 'F_UNLCK'}[typ])
