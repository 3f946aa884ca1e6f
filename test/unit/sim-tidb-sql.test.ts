/**
 * The simulated TiDB's accounts and databases (lib/sim/tidb/sql.ts): logins checked against
 * `mysql.user` with MySQL's 1045, the account and database statements with MySQL's codes and TiDB's
 * messages, and TiDB's parser error 1064 for what it cannot parse.
 */
import { describe, expect, it } from '@jest/globals';
import { SqlAccounts, hostMatches } from '../../lib/sim/tidb/sql.js';

describe('SqlAccounts logins', () => {
  it("a fresh cluster's root has the empty password, as TiDB's bootstrap leaves it", () => {
    const sql = new SqlAccounts();
    expect(sql.login('root', '', '10.0.0.7')).toBeUndefined();
    expect(sql.login('root', 'x', '10.0.0.7')).toEqual({ code: 1045, message: "Access denied for user 'root'@'10.0.0.7' (using password: YES)" });
  });

  it('after SET PASSWORD the old password is refused and the new one accepted', () => {
    const sql = new SqlAccounts();
    expect(sql.execute("set password for 'root'@'%' = 's3cr3t';")).toBeUndefined();
    expect(sql.login('root', '', '10.0.0.7')).toEqual({ code: 1045, message: "Access denied for user 'root'@'10.0.0.7' (using password: NO)" });
    expect(sql.login('root', 's3cr3t', '10.0.0.7')).toBeUndefined();
  });

  it('a password with an escaped quote is stored unescaped', () => {
    const sql = new SqlAccounts();
    sql.execute("set password for 'root'@'%' = 'it\\'s';");
    expect(sql.passwordOf('root')).toBe("it's");
  });

  it('rewriting root\'s host limits where it may log in from', () => {
    const sql = new SqlAccounts();
    sql.execute("update mysql.user set Host='10.0.%' where User='root';");
    expect(sql.login('root', '', '10.0.3.4')).toBeUndefined();
    expect(sql.login('root', '', '192.168.0.1')?.code).toBe(1045);
  });

  it.each([
    { pattern: '%', host: '10.1.2.3', matches: true },
    { pattern: '10.1.%', host: '10.1.2.3', matches: true },
    { pattern: '10.1.%', host: '10.2.2.3', matches: false },
    { pattern: '10.1.2.3', host: '10.1.2.3', matches: true },
  ])('host pattern $pattern against $host: $matches', ({ pattern, host, matches }) => {
    expect(hostMatches(pattern, host)).toBe(matches);
  });
});

describe('SqlAccounts statements', () => {
  it.each([
    { name: 'a second CREATE USER', first: "create user 'dev'@'%' identified by 'a';", then: "create user 'dev'@'%' identified by 'b';", error: { code: 1396, message: "Operation CREATE USER failed for 'dev'@'%'" } },
    { name: 'CREATE USER IF NOT EXISTS of an existing user', first: "create user 'dev'@'%' identified by 'a';", then: "create user if not exists 'dev'@'%' identified by 'b';", error: undefined },
    { name: 'ALTER USER of a missing user', first: '', then: "alter user 'nobody'@'%' identified by 'b';", error: { code: 1396, message: "Operation ALTER USER failed for 'nobody'@'%'" } },
    { name: 'a second CREATE DATABASE', first: 'create database hello;', then: 'create database hello;', error: { code: 1007, message: "Can't create database 'hello'; database exists" } },
    { name: 'CREATE DATABASE IF NOT EXISTS of an existing one', first: 'create database hello;', then: 'CREATE DATABASE IF NOT EXISTS hello;', error: undefined },
    { name: 'DROP DATABASE of a missing one', first: '', then: 'drop database nope;', error: { code: 1008, message: "Can't drop database 'nope'; database doesn't exist" } },
    { name: 'USE of a missing database', first: '', then: 'use nope', error: { code: 1049, message: "Unknown database 'nope'" } },
    { name: 'GRANT to a missing user', first: '', then: "grant all privileges on *.* to 'ghost'@'%';", error: { code: 1410, message: 'You are not allowed to create a user with GRANT' } },
    { name: 'a misspelt verb', first: '', then: 'creat database hello;', error: { code: 1064, message: 'You have an error in your SQL syntax; check the manual that corresponds to your TiDB version for the right syntax to use line 1 column 5 near "creat database hello;" ' } },
    { name: 'a misspelt object', first: '', then: 'create databse hello;\n', error: { code: 1064, message: 'You have an error in your SQL syntax; check the manual that corresponds to your TiDB version for the right syntax to use line 1 column 14 near "databse hello;" ' } },
    { name: 'a blank line', first: '', then: '\n', error: undefined },
    { name: 'a table statement (accepted, not modelled)', first: '', then: 'create table t (id int primary key);', error: undefined },
  ])('$name', ({ first, then, error }) => {
    const sql = new SqlAccounts();
    expect(sql.execute(first)).toBeUndefined();
    expect(sql.execute(then)).toEqual(error);
  });

  it('two statements on one line both run; the databases are listed as created', () => {
    const sql = new SqlAccounts();
    expect(sql.execute('create database a; create database B;')).toBeUndefined();
    expect(sql.databases()).toEqual(['a', 'b']);
  });
});
