//! One timeline cell in 8 bytes: a value, or a gap stored as NaN.
//!
//! An `Option<f64>` takes 16 bytes (f64 has no spare bit pattern the compiler can use for
//! `None`), and the timeline is rows x columns of them: a week of one-second rows for 50
//! columns was 484 MB. A [`Cell`] keeps the same meaning in half: the setters refuse every
//! value that is not finite ([`super::timeline::plausible`]), so NaN is free to mean "no
//! data", and [`Cell::new`] turns a NaN computed elsewhere into a gap too.
//!
//! The methods mirror `Option<f64>` (`get`, `is_some`, `unwrap_or`, `map`, iteration), so a
//! gap cannot be read as a number by accident: the raw f64 is never exposed.

use std::fmt;

/// A value, or a gap (no data in that second).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Cell(f64);

impl Cell {
    /// No data.
    pub const GAP: Cell = Cell(f64::NAN);

    /// A cell holding `v`; `None` and NaN are a gap.
    #[inline]
    pub fn new(v: Option<f64>) -> Cell {
        match v {
            Some(x) => Cell(x),
            None => Cell::GAP,
        }
    }

    /// A cell holding `v` (a gap when `v` is NaN).
    #[inline]
    pub fn some(v: f64) -> Cell {
        Cell(v)
    }

    /// The value, `None` for a gap.
    #[inline]
    pub fn get(&self) -> Option<f64> {
        (!self.0.is_nan()).then_some(self.0)
    }

    /// True when the cell holds a value.
    #[inline]
    pub fn is_some(&self) -> bool {
        !self.0.is_nan()
    }

    /// True for a gap.
    #[inline]
    pub fn is_none(&self) -> bool {
        self.0.is_nan()
    }

    /// True when the cell holds a value `f` accepts.
    #[inline]
    pub fn is_some_and(self, f: impl FnOnce(f64) -> bool) -> bool {
        self.get().is_some_and(f)
    }

    /// The value, or `default` for a gap.
    #[inline]
    pub fn unwrap_or(self, default: f64) -> f64 {
        if self.0.is_nan() { default } else { self.0 }
    }

    /// The value mapped by `f`, `None` for a gap.
    #[inline]
    pub fn map<T>(self, f: impl FnOnce(f64) -> T) -> Option<T> {
        self.get().map(f)
    }

    /// Adds `v` to the cell (a gap counts as 0).
    #[inline]
    pub fn add(&mut self, v: f64) {
        self.0 = if self.0.is_nan() { v } else { self.0 + v };
    }
}

impl Default for Cell {
    /// A gap.
    fn default() -> Self {
        Cell::GAP
    }
}

impl From<Option<f64>> for Cell {
    fn from(v: Option<f64>) -> Self {
        Cell::new(v)
    }
}

impl From<Cell> for Option<f64> {
    fn from(c: Cell) -> Self {
        c.get()
    }
}

impl PartialEq for Cell {
    /// Two gaps are equal, as two `None` are.
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl PartialEq<Option<f64>> for Cell {
    fn eq(&self, other: &Option<f64>) -> bool {
        self.get() == *other
    }
}

impl fmt::Debug for Cell {
    /// As the `Option<f64>` it stands for: `Some(5.0)` or `None`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl IntoIterator for Cell {
    type Item = f64;
    type IntoIter = std::option::IntoIter<f64>;
    /// The value, if any: `cells.iter().flatten()` yields the values and skips the gaps.
    fn into_iter(self) -> Self::IntoIter {
        self.get().into_iter()
    }
}

impl IntoIterator for &Cell {
    type Item = f64;
    type IntoIter = std::option::IntoIter<f64>;
    fn into_iter(self) -> Self::IntoIter {
        self.get().into_iter()
    }
}

/// Cells of `Option`s (the tests' series).
#[cfg(test)]
pub(crate) fn cells(v: impl IntoIterator<Item = Option<f64>>) -> Vec<Cell> {
    v.into_iter().map(Cell::new).collect()
}

/// The value at row `r`, `None` for a gap or a row past the end.
#[inline]
pub(crate) fn at(v: &[Cell], r: usize) -> Option<f64> {
    v.get(r).and_then(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_an_option_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<Cell>(), 8);
        assert_eq!(std::mem::size_of::<Option<f64>>(), 16);
        assert_eq!(Cell::new(Some(2.5)).get(), Some(2.5));
        assert_eq!(Cell::new(None).get(), None);
        assert_eq!(Cell::new(Some(f64::NAN)), Cell::GAP);
        assert_eq!(Cell::GAP, Cell::default());
        assert_ne!(Cell::some(0.0), Cell::GAP);
        assert_eq!(format!("{:?}", [Cell::some(1.0), Cell::GAP]), "[Some(1.0), None]");
        let v = cells([Some(1.0), None, Some(-3.0)]);
        assert_eq!(v.iter().flatten().sum::<f64>(), -2.0);
        assert_eq!((at(&v, 1), at(&v, 2), at(&v, 9)), (None, Some(-3.0), None));
        let mut c = Cell::GAP;
        c.add(2.0);
        c.add(0.5);
        assert_eq!(c.unwrap_or(0.0), 2.5);
        assert!(c.is_some_and(|x| x > 2.0) && Cell::GAP.is_none() && Cell::GAP.map(|x| x).is_none());
        assert_eq!(Option::<f64>::from(c), Some(2.5));
    }
}
